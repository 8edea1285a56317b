//===- IvlNetlist.cpp - Continuous logic to `assign` statements -----------===//
//
// Icarus delivers continuous assignments and port connections as a netlist:
// LPM devices and logic gates whose pins meet in nexuses. This file gives
// every nexus one canonical variable (a reg or input if one sits on it, else
// a named net, else an Icarus temporary, else a fresh `__nx_N` wire), emits
// each device as one `assign` onto its output's canonical variable, and
// aliases every other net on a nexus to the canonical one. Port connections
// between flattened scopes thereby become plain wires.
//
//===----------------------------------------------------------------------===//
#include "frontends/verilog/IvlReader.h"

#include <algorithm>

namespace synergy::verilog {

using namespace hwlower;

static unsigned nexusWidth(ivl_nexus_t nex) {
  for (unsigned i = 0; i < ivl_nexus_ptrs(nex); ++i) {
    ivl_nexus_ptr_t p = ivl_nexus_ptr(nex, i);
    if (ivl_signal_t sig = ivl_nexus_ptr_sig(p)) return ivl_signal_width(sig);
    if (ivl_net_const_t c = ivl_nexus_ptr_con(p)) return ivl_const_width(c);
    if (ivl_net_logic_t l = ivl_nexus_ptr_log(p)) return ivl_logic_width(l);
  }
  for (unsigned i = 0; i < ivl_nexus_ptrs(nex); ++i) {
    ivl_lpm_t lpm = ivl_nexus_ptr_lpm(ivl_nexus_ptr(nex, i));
    if (!lpm || ivl_lpm_q(lpm) != nex) continue;
    switch (ivl_lpm_type(lpm)) {
      case IVL_LPM_CMP_EQ: case IVL_LPM_CMP_NE: case IVL_LPM_CMP_GE: case IVL_LPM_CMP_GT:
      case IVL_LPM_CMP_EEQ: case IVL_LPM_CMP_NEE: case IVL_LPM_CMP_EQX: case IVL_LPM_CMP_EQZ:
      case IVL_LPM_RE_AND: case IVL_LPM_RE_NAND: case IVL_LPM_RE_OR: case IVL_LPM_RE_NOR:
      case IVL_LPM_RE_XOR: case IVL_LPM_RE_XNOR:
        return 1;
      default:
        return ivl_lpm_width(lpm);
    }
  }
  return 0;
}

int IvlReader::nexusVar(ivl_nexus_t nex, unsigned widthHint) {
  auto it = nexusVar_.find(nex);
  if (it != nexusVar_.end()) return it->second;
  int best = -1, bestRank = 99;
  for (unsigned i = 0; i < ivl_nexus_ptrs(nex); ++i) {
    ivl_nexus_ptr_t p = ivl_nexus_ptr(nex, i);
    ivl_signal_t sig = ivl_nexus_ptr_sig(p);
    if (!sig || ivl_signal_dimensions(sig) > 0) continue;
    int v = varOf(sig);
    const Var& var = out_.vars[v];
    if (var.inFunction) continue;
    int rank = (var.kind == VarKind::Reg || var.kind == VarKind::Input) ? 0 : var.isLocal ? 2 : 1;
    if (rank < bestRank) {
      best = v;
      bestRank = rank;
    }
  }
  if (best < 0) {
    Var v;
    v.name = "__nx_" + std::to_string(uniqueCounter_++);
    v.ident = v.name;
    v.width = widthHint ? widthHint : nexusWidth(nex);
    if (v.width == 0) v.width = 1;
    v.kind = VarKind::Wire;
    v.isLocal = true;
    best = out_.addVar(std::move(v));
  }
  nexusVar_[nex] = best;
  return best;
}

std::string IvlReader::nexusName(ivl_nexus_t nex, unsigned widthHint) {
  return out_.vars[nexusVar(nex, widthHint)].ident;
}

static std::string constText(ivl_net_const_t c) {
  unsigned w = ivl_const_width(c);
  const char* bits = ivl_const_bits(c);
  std::string s = std::to_string(w) + "'b";
  for (unsigned i = w; i-- > 0;) s += bits[i] == '1' ? '1' : '0';
  return s;
}

void IvlReader::readNetlist() {
  unsigned nroots = 0;
  ivl_scope_t* roots = nullptr;
  ivl_design_roots(des_, &roots, &nroots);
  for (unsigned i = 0; i < nroots; ++i) readScopeNetlist(roots[i]);
  for (unsigned i = 0; i < ivl_design_consts(des_); ++i) {
    ivl_net_const_t c = ivl_design_const(des_, i);
    if (ivl_const_type(c) == IVL_VT_REAL) continue;
    int v = nexusVar(ivl_const_nex(c), ivl_const_width(c));
    if (out_.vars[v].kind != VarKind::Wire) continue;
    out_.netlist.push_back("assign " + out_.vars[v].ident + " = " + constText(c) + ";");
  }
  aliasNets();
}

void IvlReader::readScopeNetlist(ivl_scope_t scope) {
  ivl_scope_type_t type = ivl_scope_type(scope);
  if (type == IVL_SCT_FUNCTION || type == IVL_SCT_TASK || type == IVL_SCT_CLASS) return;
  for (unsigned i = 0; i < ivl_scope_logs(scope); ++i) emitLogic(ivl_scope_log(scope, i));
  for (unsigned i = 0; i < ivl_scope_lpms(scope); ++i) emitLpm(ivl_scope_lpm(scope, i));
  for (size_t i = 0; i < ivl_scope_childs(scope); ++i) readScopeNetlist(ivl_scope_child(scope, i));
}

// What a diagnostic calls a gate or device the netlist has no `assign` for:
// its Verilog name, never Icarus's enum value.
static std::string gateTypeName(ivl_logic_t type) {
  switch (type) {
    case IVL_LO_BUFIF0: return "bufif0 gate";
    case IVL_LO_BUFIF1: return "bufif1 gate";
    case IVL_LO_NOTIF0: return "notif0 gate";
    case IVL_LO_NOTIF1: return "notif1 gate";
    case IVL_LO_NMOS: return "nmos switch";
    case IVL_LO_PMOS: return "pmos switch";
    case IVL_LO_RNMOS: return "rnmos switch";
    case IVL_LO_RPMOS: return "rpmos switch";
    case IVL_LO_CMOS: return "cmos switch";
    case IVL_LO_RCMOS: return "rcmos switch";
    case IVL_LO_EQUIV: return "logical equivalence gate";
    case IVL_LO_IMPL: return "logical implication gate";
    case IVL_LO_UDP: return "user-defined primitive";
    default: return "gate of an unknown type";
  }
}

static std::string deviceTypeName(ivl_lpm_type_t type) {
  switch (type) {
    case IVL_LPM_ABS: return "abs() in continuous logic";
    case IVL_LPM_CAST_INT:
    case IVL_LPM_CAST_INT2: return "real-to-integer conversion in continuous logic";
    case IVL_LPM_CAST_REAL: return "conversion to real in continuous logic";
    case IVL_LPM_CMP_WEQ:
    case IVL_LPM_CMP_WNE: return "wildcard equality in continuous logic";
    case IVL_LPM_FF: return "flip-flop device";
    case IVL_LPM_LATCH: return "latch device";
    case IVL_LPM_SUBSTITUTE: return "part substitution in continuous logic";
    case IVL_LPM_SFUNC: return "system function in continuous logic";
    default: return "continuous logic device of an unknown type";
  }
}

void IvlReader::emitLogic(ivl_net_logic_t log) {
  SourceLoc loc;
  if (const char* f = ivl_logic_file(log)) loc.file = f;
  loc.line = ivl_logic_lineno(log);
  unsigned w = ivl_logic_width(log);
  std::string outName = nexusName(ivl_logic_pin(log, 0), w);
  std::vector<std::string> in;
  for (unsigned i = 1; i < ivl_logic_pins(log); ++i) in.push_back(nexusName(ivl_logic_pin(log, i), w));
  auto join = [&](const char* op) {
    std::string s;
    for (size_t i = 0; i < in.size(); ++i) s += (i ? std::string(" ") + op + " " : "") + in[i];
    return s;
  };
  std::string rhs;
  switch (ivl_logic_type(log)) {
    case IVL_LO_AND: rhs = join("&"); break;
    case IVL_LO_OR: rhs = join("|"); break;
    case IVL_LO_XOR: rhs = join("^"); break;
    case IVL_LO_NAND: rhs = "~(" + join("&") + ")"; break;
    case IVL_LO_NOR: rhs = "~(" + join("|") + ")"; break;
    case IVL_LO_XNOR: rhs = "~(" + join("^") + ")"; break;
    case IVL_LO_NOT: rhs = "~" + in.at(0); break;
    case IVL_LO_BUF:
    case IVL_LO_BUFZ:
    case IVL_LO_BUFT: rhs = in.at(0); break;
    case IVL_LO_PULLUP: rhs = "{" + std::to_string(w) + "{1'b1}}"; break;
    case IVL_LO_PULLDOWN: rhs = std::to_string(w) + "'b0"; break;
    default:
      diags_.unsupported(gateTypeName(ivl_logic_type(log)), loc);
      return;
  }
  out_.netlist.push_back("assign " + outName + " = " + rhs + ";");
}

// Whether a real value travels on `nex` (a real variable or constant).
static bool nexusIsReal(ivl_nexus_t nex) {
  for (unsigned i = 0; i < ivl_nexus_ptrs(nex); ++i) {
    ivl_nexus_ptr_t p = ivl_nexus_ptr(nex, i);
    if (ivl_signal_t sig = ivl_nexus_ptr_sig(p))
      if (ivl_signal_data_type(sig) == IVL_VT_REAL) return true;
    if (ivl_net_const_t c = ivl_nexus_ptr_con(p))
      if (ivl_const_type(c) == IVL_VT_REAL) return true;
  }
  return false;
}

void IvlReader::emitLpm(ivl_lpm_t lpm) {
  SourceLoc loc;
  if (const char* f = ivl_lpm_file(lpm)) loc.file = f;
  loc.line = ivl_lpm_lineno(lpm);
  // The devices below are emitted on bit vectors; a real operand would be
  // compared or computed as its IEEE bits.
  unsigned inputs = 0;
  switch (ivl_lpm_type(lpm)) {
    case IVL_LPM_ADD: case IVL_LPM_SUB: case IVL_LPM_MULT: case IVL_LPM_DIVIDE: case IVL_LPM_MOD:
    case IVL_LPM_POW: case IVL_LPM_CMP_EQ: case IVL_LPM_CMP_EEQ: case IVL_LPM_CMP_NE:
    case IVL_LPM_CMP_NEE: case IVL_LPM_CMP_GE: case IVL_LPM_CMP_GT:
      inputs = 2;
      break;
    case IVL_LPM_MUX: case IVL_LPM_UFUNC:
      inputs = ivl_lpm_size(lpm);
      break;
    default:
      break;
  }
  bool realOperand = nexusIsReal(ivl_lpm_q(lpm));
  for (unsigned i = 0; i < inputs && !realOperand; ++i)
    if (ivl_nexus_t in = ivl_lpm_data(lpm, i)) realOperand = nexusIsReal(in);
  if (realOperand) {
    diags_.unsupported("real value in continuous logic", loc);
    return;
  }
  unsigned w = ivl_lpm_width(lpm);
  bool sgn = ivl_lpm_signed(lpm);
  auto data = [&](unsigned i) { return nexusName(ivl_lpm_data(lpm, i), 0); };
  auto sdata = [&](unsigned i) { return sgn ? "$signed(" + data(i) + ")" : data(i); };
  auto assign = [&](const std::string& rhs, unsigned qw) {
    out_.netlist.push_back("assign " + nexusName(ivl_lpm_q(lpm), qw) + " = " + rhs + ";");
  };
  switch (ivl_lpm_type(lpm)) {
    case IVL_LPM_ADD: assign(data(0) + " + " + data(1), w); return;
    case IVL_LPM_SUB: assign(data(0) + " - " + data(1), w); return;
    case IVL_LPM_MULT: assign(data(0) + " * " + data(1), w); return;
    case IVL_LPM_DIVIDE: assign(sdata(0) + " / " + sdata(1), w); return;
    case IVL_LPM_MOD: assign(sdata(0) + " % " + sdata(1), w); return;
    case IVL_LPM_POW: assign(data(0) + " ** " + sdata(1), w); return;
    case IVL_LPM_CMP_EQ:
    case IVL_LPM_CMP_EEQ:
    case IVL_LPM_CMP_EQX:
    case IVL_LPM_CMP_EQZ: assign("(" + data(0) + " == " + data(1) + ")", 1); return;
    case IVL_LPM_CMP_NE:
    case IVL_LPM_CMP_NEE: assign("(" + data(0) + " != " + data(1) + ")", 1); return;
    case IVL_LPM_CMP_GE: assign("(" + sdata(0) + " >= " + sdata(1) + ")", 1); return;
    case IVL_LPM_CMP_GT: assign("(" + sdata(0) + " > " + sdata(1) + ")", 1); return;
    case IVL_LPM_MUX: {
      std::string sel = nexusName(ivl_lpm_select(lpm), ivl_lpm_selects(lpm));
      unsigned n = ivl_lpm_size(lpm);
      std::string rhs = data(n - 1);
      for (unsigned i = n - 1; i-- > 0;)
        rhs = "(" + sel + " == " + std::to_string(i) + ") ? " + data(i) + " : " + rhs;
      assign(rhs, w);
      return;
    }
    case IVL_LPM_SHIFTL: assign(data(0) + " << " + data(1), w); return;
    case IVL_LPM_SHIFTR:
      assign(sgn ? "$signed(" + data(0) + ") >>> " + data(1) : data(0) + " >> " + data(1), w);
      return;
    case IVL_LPM_CONCAT:
    case IVL_LPM_CONCATZ: {
      std::string rhs = "{";
      unsigned n = ivl_lpm_size(lpm);
      for (unsigned i = n; i-- > 0;) rhs += data(i) + (i ? ", " : "");
      assign(rhs + "}", w);
      return;
    }
    case IVL_LPM_PART_VP: {
      std::string base = ivl_lpm_data(lpm, 1) ? data(1) : std::to_string(ivl_lpm_base(lpm));
      assign(data(0) + "[" + base + " +: " + std::to_string(w) + "]", w);
      return;
    }
    case IVL_LPM_PART_PV: {
      if (ivl_lpm_data(lpm, 1)) {
        diags_.unsupported("continuous assignment to a variable part select", loc);
        return;
      }
      std::string target = nexusName(ivl_lpm_q(lpm), 0);
      out_.netlist.push_back("assign " + target + "[" + std::to_string(ivl_lpm_base(lpm)) + " +: " +
                             std::to_string(w) + "] = " + data(0) + ";");
      return;
    }
    case IVL_LPM_RE_AND: assign("&" + data(0), 1); return;
    case IVL_LPM_RE_NAND: assign("~&" + data(0), 1); return;
    case IVL_LPM_RE_OR: assign("|" + data(0), 1); return;
    case IVL_LPM_RE_NOR: assign("~|" + data(0), 1); return;
    case IVL_LPM_RE_XOR: assign("^" + data(0), 1); return;
    case IVL_LPM_RE_XNOR: assign("~^" + data(0), 1); return;
    case IVL_LPM_REPEAT:
      assign("{" + std::to_string(ivl_lpm_size(lpm)) + "{" + data(0) + "}}", w);
      return;
    case IVL_LPM_SIGN_EXT: {
      // A scalar net has no bit range to select from (Verilator rejects
      // `w[0]` on one): its sign bit is the net itself.
      const Var& in = out_.vars[nexusVar(ivl_lpm_data(lpm, 0), 0)];
      if (in.width == w) {
        assign(in.ident, w);
      } else if (in.width > w) {
        assign(in.ident + "[" + std::to_string(w - 1) + ":0]", w);
      } else {
        std::string sign = in.width == 1 ? in.ident : in.ident + "[" + std::to_string(in.width - 1) + "]";
        assign("{{" + std::to_string(w - in.width) + "{" + sign + "}}, " + in.ident + "}", w);
      }
      return;
    }
    case IVL_LPM_ARRAY: {
      const Var& mem = out_.vars[varOf(ivl_lpm_array(lpm))];
      assign(mem.ident + "[" + nexusName(ivl_lpm_select(lpm), ivl_lpm_selects(lpm)) + "]", w);
      return;
    }
    case IVL_LPM_UFUNC: {
      ivl_scope_t def = ivl_lpm_define(lpm);
      readFunction(def);
      if (recursiveFunctions_.count(def)) {
        diags_.unsupported("recursive function '" + std::string(ivl_scope_basename(def)) +
                               "' in continuous logic",
                           loc);
        return;
      }
      std::string rhs = out_.vars[varOf(ivl_scope_port(def, 0))].ident + "(";
      for (unsigned i = 0; i < ivl_lpm_size(lpm); ++i) rhs += (i ? ", " : "") + data(i);
      assign(rhs + ")", w);
      return;
    }
    default:
      diags_.unsupported(deviceTypeName(ivl_lpm_type(lpm)) +
                             (ivl_lpm_type(lpm) == IVL_LPM_SFUNC
                                  ? std::string(" (") + ivl_lpm_string(lpm) + ")"
                                  : std::string()),
                         loc);
  }
}

// Each word of a net array is a nexus of its own: a word that something
// drives (a continuous assign, a port) reads that driver. An undriven word
// stays unassigned, which the two-state engine reads as 0.
void IvlReader::aliasNetArrayWords(int v, ivl_signal_t sig) {
  const Var& var = out_.vars[v];
  for (unsigned word = 0; word < ivl_signal_array_count(sig) && word < var.depth; ++word) {
    ivl_nexus_t nex = ivl_signal_nex(sig, word);
    if (!nex || ivl_nexus_ptrs(nex) < 2) continue;
    int canon = nexusVar(nex, var.width);
    out_.netlist.push_back("assign " + var.ident + "[" + std::to_string(word) + "] = " +
                           out_.vars[canon].ident + ";");
  }
}

void IvlReader::aliasNets() {
  // Var order, not pointer order, so the output is reproducible.
  std::vector<std::pair<int, ivl_signal_t>> byVar;
  for (auto& [sig, v] : sigVar_) byVar.push_back({v, sig});
  std::sort(byVar.begin(), byVar.end());
  for (auto& [v, sig] : byVar) {
    const Var& var = out_.vars[v];
    if (var.kind != VarKind::Wire || var.inFunction) continue;
    if (var.depth > 0) {
      aliasNetArrayWords(v, sig);
      continue;
    }
    ivl_nexus_t nex = ivl_signal_nex(sig, 0);
    if (!nex) continue;
    int canon = nexusVar(nex, var.width);
    if (canon == v) continue;
    out_.netlist.push_back("assign " + var.ident + " = " + out_.vars[canon].ident + ";");
  }
}

}  // namespace synergy::verilog
