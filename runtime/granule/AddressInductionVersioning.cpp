//===- AddressInductionVersioning.cpp - post-pass over wasm2c output -------===//
#include "granule/AddressInductionVersioning.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <tuple>
#include <vector>

namespace synergy::granule {
namespace {

// The run-time checks the versioned loops call, defined once before the
// first function. All arithmetic is exact: a product or sum that overflows
// 64 bits is far outside [0, 2^32) and fails the check.
constexpr std::string_view kCheckHelpers = R"(
/* AddressInductionVersioning: how often a loop runs whose counter starts at
   `first`, steps by `step` and ends the loop when equal to `bound` (0 when no
   count up to 2^32 reaches it), and whether start + step * k + c stays a
   32-bit address for every k from 0 to last_step and c from low to high (the
   ends suffice: it is affine in k). */
static inline u64 synergy_trips_until_equal(u32 first, u32 bound, s32 step) {
  if (step > 0) {
    const u32 distance = bound - first;
    return distance % (u32)step ? 0 : (u64)(distance / (u32)step) + 1;
  }
  if (step < 0) {
    const u32 magnitude = 0u - (u32)step;
    const u32 distance = first - bound;
    return distance % magnitude ? 0 : (u64)(distance / magnitude) + 1;
  }
  return 0;
}
static inline int synergy_stays_in_u32(s64 start, s64 step, u64 last_step, s64 low, s64 high) {
  s64 travel, last;
  if (__builtin_mul_overflow(step, (s64)last_step, &travel) ||
      __builtin_add_overflow(start, travel, &last))
    return 0; /* far outside either way */
  const s64 lowest = (last < start ? last : start) + low;
  const s64 highest = (last < start ? start : last) + high;
  return lowest >= 0 && highest <= (s64)0xffffffff;
}
)";

constexpr std::string_view kAddressMarker = "_at_base(synergy_membase, (u64)(";
constexpr std::string_view kWidePrefix = "synergy_wide_";
// More invariants than this in one address is not a shape wasm2c output of
// compiled C has; such a value is treated as unknown.
constexpr size_t kMaxTerms = 8;

bool isIdentifierChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

bool isVariable(std::string_view token) {
  if (token.substr(0, 4) != "w2c_" || token.size() == 4) return false;
  for (char c : token)
    if (!isIdentifierChar(c)) return false;
  return true;
}

// wasm2c's u32 stack temporaries; every other variable read into one of
// them is a u32 local or parameter.
bool isTemporary(std::string_view name) {
  if (name.substr(0, 5) != "w2c_i" || name.size() == 5) return false;
  for (char c : name.substr(5))
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.remove_suffix(1);
  return text;
}

// "w2c_L12: " -> "w2c_L12", else "".
std::string_view loopLabelOf(std::string_view line) {
  std::string_view text = trim(line);
  if (text.size() < 7 || text.substr(0, 5) != "w2c_L" || text.back() != ':') return {};
  text.remove_suffix(1);
  return isVariable(text) ? text : std::string_view{};
}

// "if (w2c_i0) {goto w2c_L12;}" -> "w2c_i0" when it branches to `label`.
std::string_view backEdgeCondition(std::string_view line, std::string_view label) {
  std::string_view text = trim(line);
  constexpr std::string_view kOpen = "if (";
  if (text.substr(0, kOpen.size()) != kOpen) return {};
  size_t close = text.find(')');
  if (close == std::string_view::npos) return {};
  std::string_view condition = text.substr(kOpen.size(), close - kOpen.size());
  std::string expected = ") {goto " + std::string(label) + ";}";
  if (text.substr(close) != expected || !isVariable(condition)) return {};
  return condition;
}

// One addend of an address: a constant or a local the loop never sets.
struct Term {
  bool isConstant = false;
  uint32_t constant = 0;
  std::string local;

  bool operator==(const Term& other) const {
    return isConstant == other.isConstant && constant == other.constant && local == other.local;
  }
  // The term as wasm2c's u32 arithmetic reads it.
  std::string asU32() const {
    return isConstant ? std::to_string(constant) + "u" : local;
  }
  // The term as the 64-bit address arithmetic of the versioned loop reads it.
  // Any representative of the value modulo 2^32 is exact, as long as the
  // check uses the same one; the signed one keeps `p + (-4)` and downward
  // steps in range.
  std::string asWide() const {
    return "(s64)(s32)" + (isConstant ? std::to_string(constant) + "u" : local);
  }
};

// What a u32 variable holds at a point of one iteration: unknown, or a
// counter's value (before or after this iteration's step) plus invariants,
// or the result of comparing two such values with `!=`.
struct Value {
  enum Kind { kUnknown, kAffine, kNotEqual } kind = kUnknown;
  std::string counter;   // empty: invariants only
  size_t stepsTaken = 0;  // how many of the counter's updates ran in this iteration
  std::vector<Term> terms;
  std::vector<Value> compared;  // kNotEqual: the two sides
};

Value sum(const Value& a, const Value& b) {
  if (a.kind != Value::kAffine || b.kind != Value::kAffine) return {};
  if (!a.counter.empty() && !b.counter.empty()) return {};
  if (a.terms.size() + b.terms.size() > kMaxTerms) return {};
  Value result = a.counter.empty() ? b : a;
  const Value& other = a.counter.empty() ? a : b;
  result.terms.insert(result.terms.end(), other.terms.begin(), other.terms.end());
  return result;
}

// a - b, for a constant b only.
Value difference(const Value& a, const Value& b) {
  if (b.kind != Value::kAffine || !b.counter.empty()) return {};
  uint32_t subtracted = 0;
  for (const Term& term : b.terms) {
    if (!term.isConstant) return {};
    subtracted += term.constant;
  }
  Term negated;
  negated.isConstant = true;
  negated.constant = 0u - subtracted;
  Value constant;
  constant.kind = Value::kAffine;
  constant.terms = {negated};
  return sum(a, constant);
}

// One line of the loop body, as far as this pass reads it.
struct Statement {
  enum Kind { kNone, kCopy, kConstant, kAdd, kSubtract, kNotEqual, kOther } kind = kNone;
  std::string target;            // the variable set, if any
  std::string first, second;     // operands
  uint32_t constant = 0;
  std::vector<std::pair<size_t, std::string>> addresses;  // column, variable
};

std::optional<uint32_t> parseConstant(std::string_view text) {
  if (text.size() < 2 || text.back() != 'u' || text.size() > 11) return std::nullopt;
  uint64_t value = 0;
  for (char c : text.substr(0, text.size() - 1)) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    value = value * 10 + static_cast<uint64_t>(c - '0');
  }
  if (value > UINT32_MAX) return std::nullopt;
  return static_cast<uint32_t>(value);
}

// nullopt: a line this pass does not take inside a loop (control flow, or
// more than one statement).
std::optional<Statement> parseStatement(std::string_view line) {
  std::string_view text = trim(line);
  if (text.empty() || text.back() != ';' || text.find(';') != text.size() - 1) return std::nullopt;
  for (std::string_view word : {"goto", "return", "{", "}", "#"})
    if (text.find(word) != std::string_view::npos) return std::nullopt;
  // A ':' only as part of a select `c ? a : b`.
  if (text.find(':') != std::string_view::npos && text.find('?') == std::string_view::npos)
    return std::nullopt;

  Statement statement;
  for (size_t at = line.find(kAddressMarker); at != std::string_view::npos;
       at = line.find(kAddressMarker, at + 1)) {
    size_t start = at + kAddressMarker.size();
    size_t end = start;
    while (end < line.size() && isIdentifierChar(line[end])) ++end;
    std::string_view variable = line.substr(start, end - start);
    if (end < line.size() && line[end] == ')' && isVariable(variable))
      statement.addresses.emplace_back(start, std::string(variable));
  }

  size_t nameEnd = 0;
  while (nameEnd < text.size() && isIdentifierChar(text[nameEnd])) ++nameEnd;
  std::string_view target = text.substr(0, nameEnd);
  std::string_view rest = text.substr(nameEnd);
  // An assignment: "x = ...;", "x += ...;" and the like.
  size_t equals = rest.find('=');
  bool assigns = isVariable(target) && equals != std::string_view::npos && equals <= 3 &&
                 trim(rest.substr(0, equals)).find_first_not_of("+-*/%&|^<>") ==
                     std::string_view::npos &&
                 (equals + 1 >= rest.size() || rest[equals + 1] != '=');
  if (!assigns) return statement;
  statement.target = std::string(target);
  std::string_view op = trim(rest.substr(0, equals));
  std::string_view operand = trim(rest.substr(equals + 1));
  operand.remove_suffix(1);  // ';'
  operand = trim(operand);
  statement.kind = Statement::kOther;
  if (op.empty()) {
    if (isVariable(operand)) {
      statement.kind = Statement::kCopy;
      statement.first = std::string(operand);
    } else if (auto constant = parseConstant(operand)) {
      statement.kind = Statement::kConstant;
      statement.constant = *constant;
    } else if (size_t ne = operand.find(" != "); ne != std::string_view::npos) {
      std::string_view left = operand.substr(0, ne), right = operand.substr(ne + 4);
      if (isVariable(left) && isVariable(right)) {
        statement.kind = Statement::kNotEqual;
        statement.first = std::string(left);
        statement.second = std::string(right);
      }
    }
  } else if ((op == "+" || op == "-") && isVariable(operand)) {
    statement.kind = op == "+" ? Statement::kAdd : Statement::kSubtract;
    statement.first = std::string(operand);
  }
  return statement;
}

struct AddressUse {
  size_t line;  // index into the body
  size_t column;
  std::string variable;
  Value value;
};

struct LoopPlan {
  // counter -> the invariants each of its updates adds, in order
  std::map<std::string, std::vector<std::vector<Term>>> steps;
  std::vector<AddressUse> uses;       // addresses that follow a counter
  Value exit;                         // the back edge's `!=`
};

// Runs the body once symbolically with `counters` taken as counters.
// Returns false with the counter that is not one in `failed`.
bool interpret(const std::vector<Statement>& body, const std::set<std::string>& assigned,
               const std::set<std::string>& counters, const std::string& condition,
               LoopPlan& plan, std::string& failed) {
  std::map<std::string, Value> temporaries;
  std::map<std::string, size_t> updates;
  std::map<std::string, Value> setThisIteration;  // other locals, once set
  auto read = [&](const std::string& name) -> Value {
    if (isTemporary(name)) {
      auto found = temporaries.find(name);
      return found == temporaries.end() ? Value{} : found->second;
    }
    Value value;
    if (!assigned.count(name)) {
      value.kind = Value::kAffine;
      Term term;
      term.local = name;
      value.terms = {term};
    } else if (counters.count(name)) {
      value.kind = Value::kAffine;
      value.counter = name;
      value.stepsTaken = updates[name];
    } else if (auto set = setThisIteration.find(name); set != setThisIteration.end()) {
      value = set->second;
    }
    return value;
  };
  plan = {};
  for (size_t i = 0; i < body.size(); ++i) {
    const Statement& statement = body[i];
    for (const auto& [column, variable] : statement.addresses) {
      Value value = read(variable);
      if (value.kind == Value::kAffine && !value.counter.empty())
        plan.uses.push_back({i, column, variable, value});
    }
    if (statement.target.empty()) continue;
    // Only u32 values are followed: wasm2c's arithmetic and comparisons work
    // on stack temporaries of the operand type, so an operation on u32
    // temporaries has u32 operands, a u32 temporary copied from a local means
    // a u32 local, and a local copied from a u32 temporary is one.
    const bool u32Target = isTemporary(statement.target);
    Value result;
    switch (statement.kind) {
      case Statement::kCopy:
        if (u32Target || isTemporary(statement.first)) result = read(statement.first);
        break;
      case Statement::kConstant: {
        if (!u32Target) break;
        Term term;
        term.isConstant = true;
        term.constant = statement.constant;
        result.kind = Value::kAffine;
        result.terms = {term};
        break;
      }
      case Statement::kAdd:
        if (u32Target && isTemporary(statement.first))
          result = sum(read(statement.target), read(statement.first));
        break;
      case Statement::kSubtract:
        if (u32Target && isTemporary(statement.first))
          result = difference(read(statement.target), read(statement.first));
        break;
      case Statement::kNotEqual:
        if (!isTemporary(statement.first) || !isTemporary(statement.second)) break;
        result.kind = Value::kNotEqual;
        result.compared = {read(statement.first), read(statement.second)};
        break;
      default: break;
    }
    if (isTemporary(statement.target)) {
      temporaries[statement.target] = result;
    } else if (counters.count(statement.target)) {
      // Each update of a counter: its value so far plus invariants. The value
      // may be built from an earlier one plus the steps taken since.
      std::vector<Term> step = result.terms;
      bool isUpdate = result.kind == Value::kAffine && result.counter == statement.target &&
                      result.stepsTaken <= updates[statement.target];
      for (size_t i = result.stepsTaken; isUpdate && i < updates[statement.target]; ++i)
        for (const Term& taken : plan.steps[statement.target][i]) {
          auto same = std::find(step.begin(), step.end(), taken);
          if (same == step.end()) {
            isUpdate = false;
            break;
          }
          step.erase(same);
        }
      if (!isUpdate || step.empty()) {
        failed = statement.target;
        return false;
      }
      plan.steps[statement.target].push_back(step);
      ++updates[statement.target];
    } else {
      // Another local: what it holds from here to the end of the iteration
      // (before its first set here it holds the last iteration's value).
      setThisIteration[statement.target] = result;
    }
  }
  plan.exit = read(condition);
  // `if (counter-based value) goto` continues while it is not 0.
  if (plan.exit.kind == Value::kAffine) {
    Value zero;
    zero.kind = Value::kAffine;
    Term term;
    term.isConstant = true;
    zero.terms = {term};
    Value compared;
    compared.kind = Value::kNotEqual;
    compared.compared = {plan.exit, zero};
    plan.exit = compared;
  }
  return true;
}

std::optional<LoopPlan> planLoop(const std::vector<Statement>& body, const std::string& condition) {
  if (!isTemporary(condition)) return std::nullopt;
  std::set<std::string> assigned;
  std::map<std::string, bool> onlyCopies;
  std::set<std::string> counters;
  for (const Statement& statement : body) {
    if (statement.target.empty() || isTemporary(statement.target)) continue;
    assigned.insert(statement.target);
    auto [entry, first] = onlyCopies.emplace(statement.target, true);
    entry->second =
        entry->second && statement.kind == Statement::kCopy && isTemporary(statement.first);
  }
  for (const auto& [local, copiesOnly] : onlyCopies)
    if (copiesOnly) counters.insert(local);

  LoopPlan plan;
  std::string failed;
  while (!interpret(body, assigned, counters, condition, plan, failed)) counters.erase(failed);

  // The exit: a counter with a constant step against invariants.
  if (plan.exit.kind != Value::kNotEqual) return std::nullopt;
  const Value& left = plan.exit.compared[0];
  const Value& right = plan.exit.compared[1];
  if (left.kind != Value::kAffine || right.kind != Value::kAffine) return std::nullopt;
  if (left.counter.empty() == right.counter.empty()) return std::nullopt;
  const Value& moving = left.counter.empty() ? right : left;
  if (!plan.steps.count(moving.counter)) return std::nullopt;
  for (const std::vector<Term>& step : plan.steps[moving.counter])
    for (const Term& term : step)
      if (!term.isConstant) return std::nullopt;
  // Only counters whose update was seen carry a step.
  std::vector<AddressUse> uses;
  for (AddressUse& use : plan.uses)
    if (plan.steps.count(use.value.counter)) uses.push_back(std::move(use));
  plan.uses = std::move(uses);
  if (plan.uses.empty()) return std::nullopt;
  return plan;
}

std::string joinU32(const std::vector<Term>& terms) {
  if (terms.empty()) return "0u";
  std::string text;
  for (const Term& term : terms) text += (text.empty() ? "" : " + ") + term.asU32();
  return text;
}

// The steps a counter's first `count` updates add, in 64-bit arithmetic.
std::string stepsAdded(const std::vector<std::vector<Term>>& steps, size_t count) {
  std::string text;
  for (size_t i = 0; i < count; ++i)
    for (const Term& term : steps[i]) text += " + " + term.asWide();
  return text;
}

// An address stream of the versioned loop: a counter plus the locals (not
// the constants) an address adds to it. The copy keeps one 64-bit shadow per
// stream, its value at the start of the iteration, so each address there is
// a shadow plus constants, which fold into the load's displacement. A shadow
// per counter with the locals added at each use made clang keep every
// unrolled step's counter-plus-local sum live through the enclosing loop:
// covariance's column pair, two streams off one row counter, spilled four of
// them to the stack and reloaded them every iteration of its hot loop, 1.25x
// native against 1.0x for the loop without the copy.
struct Stream {
  std::string counter;
  std::vector<std::string> locals;  // sorted

  static Stream of(const Value& value) {
    Stream stream{value.counter, {}};
    for (const Term& term : value.terms)
      if (!term.isConstant) stream.locals.push_back(term.local);
    std::sort(stream.locals.begin(), stream.locals.end());
    return stream;
  }
  bool operator<(const Stream& other) const {
    return std::tie(counter, locals) < std::tie(other.counter, other.locals);
  }
  std::string shadow() const {
    std::string name = std::string(kWidePrefix) + counter;
    for (const std::string& local : locals) name += "_" + local;
    return name;
  }
  // The shadow's value before the loop.
  std::string start() const {
    std::string text = "(s64)(u64)" + counter;
    for (const std::string& local : locals) text += " + (s64)(s32)" + local;
    return text;
  }
};

// What `value` adds to its stream's shadow inside the versioned loop: the
// steps its counter took so far in the iteration and its constants.
std::string wideOffset(const Value& value, const std::vector<std::vector<Term>>& steps) {
  std::string text = stepsAdded(steps, value.stepsTaken);
  for (const Term& term : value.terms)
    if (term.isConstant) text += " + " + term.asWide();
  return text;
}

// The versioned loop: check, 64-bit copy, original. `lines` runs from the
// label to the back edge.
std::vector<std::string> versionLoop(const std::vector<std::string>& lines,
                                     const std::string& label, const LoopPlan& plan) {
  std::string indent = lines.front().substr(0, lines.front().find_first_not_of(' '));
  std::vector<std::string> out;

  const Value& left = plan.exit.compared[0];
  const Value& right = plan.exit.compared[1];
  const Value& moving = left.counter.empty() ? right : left;
  const Value& bound = left.counter.empty() ? left : right;
  std::vector<Term> exitStep;  // all constants
  std::string first = moving.counter;
  const auto& exitSteps = plan.steps.at(moving.counter);
  for (size_t i = 0; i < exitSteps.size(); ++i)
    for (const Term& term : exitSteps[i]) {
      exitStep.push_back(term);
      if (i < moving.stepsTaken) first += " + " + term.asU32();
    }
  for (const Term& term : moving.terms) first += " + " + term.asU32();

  out.push_back(indent + "{");
  out.push_back(indent + "  const u64 synergy_trips = synergy_trips_until_equal((u32)(" + first +
                "), (u32)(" + joinU32(bound.terms) + "), (s32)(" + joinU32(exitStep) + "));");
  // One check per counter, point in the iteration and non-constant terms:
  // the constants added to them only widen the range between their least
  // and greatest.
  struct Range {
    std::string start, step;
    int64_t low = 0, high = 0;
  };
  std::map<std::string, Range> ranges;
  std::set<Stream> streams;
  for (const AddressUse& use : plan.uses) {
    const auto& steps = plan.steps.at(use.value.counter);
    std::string start = "(s64)(u64)" + use.value.counter + stepsAdded(steps, use.value.stepsTaken);
    int64_t constant = 0;
    for (const Term& term : use.value.terms) {
      if (term.isConstant)
        constant += static_cast<int32_t>(term.constant);
      else
        start += " + " + term.asWide();
    }
    auto [range, added] = ranges.emplace(start, Range{start, stepsAdded(steps, steps.size()).substr(3),
                                                      constant, constant});
    range->second.low = std::min(range->second.low, constant);
    range->second.high = std::max(range->second.high, constant);
    streams.insert(Stream::of(use.value));
  }
  std::string check = "synergy_trips != 0";
  for (const auto& [key, range] : ranges)
    check += " &&\n" + indent + "      synergy_stays_in_u32(" + range.start + ", " + range.step +
             ", synergy_trips - 1, " + std::to_string(range.low) + ", " +
             std::to_string(range.high) + ")";
  out.push_back(indent + "  if (" + check + ") {");
  for (const Stream& stream : streams)
    out.push_back(indent + "    s64 " + stream.shadow() + " = " + stream.start() + ";");
  out.push_back(indent + std::string(kWidePrefix) + label + ":;");
  std::vector<std::string> body(lines.begin() + 1, lines.end() - 1);
  // Replace from the right, so that earlier columns stay valid.
  for (auto use = plan.uses.rbegin(); use != plan.uses.rend(); ++use)
    body[use->line].replace(use->column, use->variable.size(),
                            Stream::of(use->value).shadow() +
                                wideOffset(use->value, plan.steps.at(use->value.counter)));
  for (std::string& line : body) out.push_back(line);
  std::string bodyIndent = lines.back().substr(0, lines.back().find_first_not_of(' '));
  for (const Stream& stream : streams) {
    const auto& steps = plan.steps.at(stream.counter);
    out.push_back(bodyIndent + stream.shadow() + " +=" +
                  stepsAdded(steps, steps.size()).substr(2) + ";");
  }
  std::string backEdge = lines.back();
  backEdge.replace(backEdge.find("goto " + label), 5 + label.size(),
                   "goto " + std::string(kWidePrefix) + label);
  out.push_back(backEdge);
  out.push_back(indent + "  } else {");
  for (const std::string& line : lines) out.push_back(line);
  out.push_back(indent + "  }");
  out.push_back(indent + "}");
  return out;
}

}  // namespace

int versionAddressInductionLoops(std::string& cSource) {
  std::vector<std::string> lines;
  for (size_t pos = 0; pos <= cSource.size();) {
    size_t end = cSource.find('\n', pos);
    if (end == std::string::npos) end = cSource.size();
    lines.emplace_back(cSource, pos, end - pos);
    pos = end + 1;
  }

  std::vector<std::string> out;
  out.reserve(lines.size());
  int versioned = 0;
  bool helpersEmitted = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view label = loopLabelOf(lines[i]);
    std::optional<LoopPlan> plan;
    size_t backEdge = i + 1;
    if (!label.empty()) {
      std::vector<Statement> body;
      for (; backEdge < lines.size(); ++backEdge) {
        if (!backEdgeCondition(lines[backEdge], label).empty()) break;
        auto statement = parseStatement(lines[backEdge]);
        if (!statement) break;
        body.push_back(std::move(*statement));
      }
      if (backEdge < lines.size()) {
        std::string_view condition = backEdgeCondition(lines[backEdge], label);
        if (!condition.empty()) plan = planLoop(body, std::string(condition));
      }
    }
    if (!plan) {
      out.push_back(std::move(lines[i]));
      continue;
    }
    std::vector<std::string> loop(lines.begin() + i, lines.begin() + backEdge + 1);
    for (std::string& line : versionLoop(loop, std::string(label), *plan))
      out.push_back(std::move(line));
    ++versioned;
    i = backEdge;
  }
  if (versioned == 0) return 0;

  std::string result;
  result.reserve(cSource.size() * 2);
  for (size_t i = 0; i < out.size(); ++i) {
    // Before the first function or its forward declaration.
    if (!helpersEmitted && out[i].substr(0, 7) == "static " &&
        out[i].find("_instance_t*") != std::string::npos) {
      result += kCheckHelpers;
      helpersEmitted = true;
    }
    result += out[i];
    if (i + 1 < out.size()) result += '\n';
  }
  if (!helpersEmitted) return 0;
  cSource = std::move(result);
  return versioned;
}

}  // namespace synergy::granule
