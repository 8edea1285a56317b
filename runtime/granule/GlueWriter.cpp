//===- GlueWriter.cpp - the fixed C interface around a wasm2c module -------===//
#include "granule/GlueWriter.h"

#include <algorithm>
#include <sstream>
#include <string_view>

#include "granule/WasmModuleCheck.h"

namespace synergy::granule {
namespace {

std::vector<std::string_view> splitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    lines.push_back(text.substr(pos, end - pos));
    pos = end + 1;
  }
  return lines;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == ';')) s.remove_suffix(1);
  return s;
}

bool isCIdentifier(std::string_view s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'))
      return false;
  return true;
}

bool isScalarType(std::string_view type) {
  return type == "u32" || type == "u64" || type == "f32" || type == "f64";
}

// "struct Z_env_instance_t*": the only pointer type an import takes.
bool isImportInstanceType(std::string_view type) {
  constexpr std::string_view kStruct = "struct ";
  return type.substr(0, kStruct.size()) == kStruct && type.ends_with("_instance_t*") &&
         isCIdentifier(type.substr(kStruct.size(), type.size() - kStruct.size() - 1));
}

// wasm2c's "/* import: 'module' 'name' */" or "/* export: 'name' */", parsed
// whole: exactly `count` quoted names, each of them a safe interface name
// (the checker admitted no other), and nothing else on the line.
bool parseInterfaceComment(std::string_view line, std::string_view kind, size_t count,
                           std::vector<std::string>& names) {
  std::string prefix = "/* " + std::string(kind) + ": ";
  if (line.substr(0, prefix.size()) != prefix || !line.ends_with(" */")) return false;
  std::string_view rest = line.substr(prefix.size(), line.size() - prefix.size() - 3);
  names.clear();
  while (names.size() < count) {
    if (!names.empty()) {
      if (rest.substr(0, 1) != " ") return false;
      rest.remove_prefix(1);
    }
    if (rest.substr(0, 1) != "'") return false;
    size_t close = rest.find('\'', 1);
    if (close == std::string_view::npos) return false;
    std::string_view name = rest.substr(1, close - 1);
    if (!isSafeInterfaceName(name)) return false;
    names.emplace_back(name);
    rest.remove_prefix(close + 1);
  }
  return rest.empty();
}

// Every byte outside printable ASCII, and the quote and backslash, escaped.
std::string cStringLiteral(std::string_view text) {
  static const char kOctal[] = "01234567";
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += char(c);
    } else if (c >= 0x20 && c < 0x7f && c != '?') {
      out += char(c);
    } else {
      out += '\\';
      out += kOctal[c >> 6];
      out += kOctal[(c >> 3) & 7];
      out += kOctal[c & 7];
    }
  }
  return out + "\"";
}

struct Declaration {
  std::string returnType;
  std::string symbol;
  std::vector<std::string> paramTypes;
};

// "u32 Z_fooZ_bar(struct Z_foo_instance_t*, u32, u64);" -> parts. The
// symbol must be a C identifier; the types are checked by each caller against
// the few that can occur where it copies them.
bool parseFunctionDeclaration(std::string_view line, Declaration& decl) {
  line = trim(line);
  size_t open = line.find('(');
  size_t close = line.rfind(')');
  if (open == std::string_view::npos || close + 1 != line.size() || close < open) return false;
  std::string_view head = trim(line.substr(0, open));
  size_t space = head.find_last_of(" *");
  if (space == std::string_view::npos) return false;
  decl.symbol = std::string(head.substr(space + 1));
  decl.returnType = std::string(trim(head.substr(0, space + 1)));
  if (!isCIdentifier(decl.symbol)) return false;
  std::string_view params = line.substr(open + 1, close - open - 1);
  size_t pos = 0;
  while (pos <= params.size() && !params.empty()) {
    size_t comma = params.find(',', pos);
    if (comma == std::string_view::npos) comma = params.size();
    decl.paramTypes.emplace_back(trim(params.substr(pos, comma - pos)));
    pos = comma + 1;
  }
  return true;
}

// LLVM's setjmp/longjmp lowering (-enable-emscripten-sjlj) calls
// env.invoke_<signature>(function, arguments...) for each call made by a
// function that calls setjmp; runtime/granule/SetjmpLongjmp.cpp runs it.
bool isSetjmpInvokeImport(std::string_view module, std::string_view name) {
  return module == "env" && name.starts_with("invoke_");
}

const char* wasmRtType(std::string_view type) {
  if (type == "u32") return "WASM_RT_I32";
  if (type == "u64") return "WASM_RT_I64";
  if (type == "f32") return "WASM_RT_F32";
  return "WASM_RT_F64";
}

// Defines an invoke import: its arguments go into a struct, a trampoline
// makes the typed call from it, and synergy_setjmp_invoke runs the
// trampoline under a longjmp target. A longjmp leaves the result zero. All
// names are ours (numbered), and every copied type was checked to be a
// scalar by the caller; the first argument must be the table index.
bool writeSetjmpInvoke(const Declaration& decl, size_t index, std::ostringstream& out,
                       std::ostringstream& typeRegistration) {
  if (decl.paramTypes.size() < 2 || decl.paramTypes[1] != "u32") return false;
  const std::string suffix = std::to_string(index);
  const bool returns = decl.returnType != "void";
  const size_t calleeParams = decl.paramTypes.size() - 2;
  out << "static uint32_t synergy_invoke_type_" << suffix << ";\n"
      << "struct synergy_invoke_args_" << suffix << " {\n  int unused;\n";
  for (size_t p = 0; p < calleeParams; ++p)
    out << "  " << decl.paramTypes[p + 2] << " a" << p << ";\n";
  if (returns) out << "  " << decl.returnType << " result;\n";
  out << "};\n"
      << "static void synergy_invoke_call_" << suffix
      << "(void* arguments, const wasm_rt_funcref_t* callee) {\n"
      << "  struct synergy_invoke_args_" << suffix << "* args = arguments;\n  "
      << (returns ? "args->result = " : "") << "((" << decl.returnType << " (*)(void*";
  for (size_t p = 0; p < calleeParams; ++p) out << ", " << decl.paramTypes[p + 2];
  out << "))callee->func)(callee->module_instance";
  for (size_t p = 0; p < calleeParams; ++p) out << ", args->a" << p;
  out << ");\n}\n"
      << decl.returnType << " " << decl.symbol << "(" << decl.paramTypes[0]
      << " host, u32 function";
  for (size_t p = 0; p < calleeParams; ++p) out << ", " << decl.paramTypes[p + 2] << " a" << p;
  out << ") {\n  struct synergy_invoke_args_" << suffix << " args = {0";
  for (size_t p = 0; p < calleeParams; ++p) out << ", a" << p;
  out << "};\n  synergy_setjmp_invoke(host, synergy_invoke_type_" << suffix
      << ", function, synergy_invoke_call_" << suffix << ", &args);\n"
      << (returns ? "  return args.result;\n" : "") << "}\n";

  typeRegistration << "  synergy_invoke_type_" << suffix << " = wasm_rt_register_func_type("
                   << calleeParams << ", " << (returns ? 1 : 0);
  for (size_t p = 0; p < calleeParams; ++p)
    typeRegistration << ", " << wasmRtType(decl.paramTypes[p + 2]);
  if (returns) typeRegistration << ", " << wasmRtType(decl.returnType);
  typeRegistration << ");\n";
  return true;
}

}  // namespace

bool writeGlue(const std::string& wasm2cHeader, const std::string& moduleName,
               const std::function<bool(const std::string&)>& isProvided, Glue& glue,
               std::string& error) {
  const std::string instanceType = "Z_" + moduleName + "_instance_t";
  auto lines = splitLines(wasm2cHeader);

  std::vector<std::string> globalFields;
  std::vector<std::string> importInstanceFields;
  std::string tableField;
  std::vector<std::string> importInstanceTypes;
  std::ostringstream stubs;
  std::ostringstream invokes;
  std::ostringstream invokeTypes;
  size_t invokeCount = 0;
  struct Export {
    std::string name;
    GlueExportKind kind;
    std::string symbol;
  };
  std::vector<Export> exports;

  bool inStruct = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    if (line.substr(0, 15) == "typedef struct " && line.find(instanceType) != std::string_view::npos) {
      inStruct = true;
      continue;
    }
    if (inStruct) {
      if (line.substr(0, 1) == "}") {
        inStruct = false;
        continue;
      }
      std::string_view field = trim(line);
      size_t space = field.rfind(' ');
      if (space == std::string_view::npos) continue;
      std::string_view type = field.substr(0, space), name = field.substr(space + 1);
      // Fields of other types (such as segment-dropped bit fields) are not
      // copied, so only the ones of the types below need a name check.
      bool copied = type == "wasm_rt_memory_t" || type == "wasm_rt_funcref_table_t" ||
                    isScalarType(type) || isImportInstanceType(type);
      if (copied && !isCIdentifier(name)) {
        error = "unexpected wasm2c output: instance field '" + std::string(field) + "'";
        return false;
      }
      if (type == "wasm_rt_memory_t") {
        if (!glue.memoryField.empty()) {
          error = "modules with more than one memory are not supported";
          return false;
        }
        glue.memoryField = std::string(name);
      } else if (type == "wasm_rt_memory_t*") {
        error = "imported memories are not supported";
        return false;
      } else if (type == "wasm_rt_funcref_table_t" && tableField.empty()) {
        tableField = std::string(name);
      } else if (isScalarType(type) && name.substr(0, 4) == "w2c_") {
        globalFields.emplace_back(name);
      } else if (isImportInstanceType(type)) {
        importInstanceFields.emplace_back(name);
      }
      continue;
    }
    std::string instantiatePrefix = "void Z_" + moduleName + "_instantiate(";
    if (line.substr(0, instantiatePrefix.size()) == instantiatePrefix) {
      Declaration decl;
      if (!parseFunctionDeclaration(line, decl) || decl.paramTypes.empty() ||
          decl.paramTypes[0] != instanceType + "*" ||
          !std::all_of(decl.paramTypes.begin() + 1, decl.paramTypes.end(),
                       [](const std::string& type) { return isImportInstanceType(type); })) {
        error = "unexpected wasm2c instantiate signature";
        return false;
      }
      importInstanceTypes.assign(decl.paramTypes.begin() + 1, decl.paramTypes.end());
      continue;
    }
    if (line.substr(0, 11) == "/* import: ") {
      std::vector<std::string> names;
      if (!parseInterfaceComment(line, "import", 2, names) || i + 1 >= lines.size()) {
        error = "unexpected wasm2c output: an import comment that is not two safe names";
        return false;
      }
      std::string qualified = names[0] + "." + names[1];
      Declaration decl;
      if (!parseFunctionDeclaration(lines[i + 1], decl)) {
        error = "unsupported import kind for '" + qualified + "' (only functions are supported)";
        return false;
      }
      bool copyable = (decl.returnType == "void" || isScalarType(decl.returnType)) &&
                      !decl.paramTypes.empty() && isImportInstanceType(decl.paramTypes[0]) &&
                      std::all_of(decl.paramTypes.begin() + 1, decl.paramTypes.end(),
                                  [](const std::string& type) { return isScalarType(type); });
      if (!copyable) {
        error = "unexpected wasm2c declaration for import '" + qualified + "'";
        return false;
      }
      if (isSetjmpInvokeImport(names[0], names[1]) && !isProvided(decl.symbol)) {
        if (!writeSetjmpInvoke(decl, invokeCount++, invokes, invokeTypes)) {
          error = "unexpected wasm2c declaration for import '" + qualified + "'";
          return false;
        }
      } else if (!isProvided(decl.symbol)) {
        glue.unresolvedImports.push_back(qualified);
        stubs << decl.returnType << " " << decl.symbol << "(";
        for (size_t p = 0; p < decl.paramTypes.size(); ++p)
          stubs << (p ? ", " : "") << decl.paramTypes[p] << " a" << p;
        stubs << ") {\n  synergy_unresolved_import(" << cStringLiteral(names[0]) << ", "
              << cStringLiteral(names[1]) << ");\n}\n";
      }
      ++i;
      continue;
    }
    if (line.substr(0, 11) == "/* export: ") {
      std::vector<std::string> names;
      Declaration decl;
      if (!parseInterfaceComment(line, "export", 1, names) || i + 1 >= lines.size() ||
          !parseFunctionDeclaration(lines[i + 1], decl)) {
        error = "unexpected wasm2c output: an export that is not one safe name and a declaration";
        return false;
      }
      GlueExportKind kind = GlueExportKind::Function;
      if (decl.returnType == "wasm_rt_memory_t*") kind = GlueExportKind::Memory;
      else if (decl.returnType == "wasm_rt_funcref_table_t*" ||
               decl.returnType == "wasm_rt_externref_table_t*")
        kind = GlueExportKind::Table;
      else if (decl.returnType.size() == 4 && decl.returnType.back() == '*' &&
               isScalarType(decl.returnType.substr(0, 3)))
        kind = GlueExportKind::Global;
      exports.push_back({names[0], kind, decl.symbol});
      ++i;
    }
  }
  if (glue.memoryField.empty()) {
    error = "module defines no linear memory";
    return false;
  }

  std::ostringstream c;
  c << "/* Generated by synergy's AOT step: the fixed interface the runtime loads. */\n"
    << "#include <stddef.h>\n#include \"" << moduleName << ".h\"\n\n"
    << "__attribute__((noreturn)) void synergy_unresolved_import(const char*, const char*);\n\n"
    << stubs.str() << "\n";
  if (invokeCount != 0)
    c << "int synergy_setjmp_invoke(void*, uint32_t, uint32_t,\n"
      << "    void (*)(void*, const wasm_rt_funcref_t*), void*);\n"
      << invokes.str() << "\n";
  c << "size_t synergy_glue_instance_size(void) { return sizeof(" << instanceType << "); }\n"
    << "void synergy_glue_init_module(void) {\n" << invokeTypes.str() << "  Z_" << moduleName
    << "_init_module();\n}\n"
    << "void synergy_glue_instantiate(void* instance, void* host) {\n  Z_" << moduleName
    << "_instantiate((" << instanceType << "*)instance";
  for (const auto& type : importInstanceTypes) c << ", (" << type << ")host";
  c << ");\n}\n"
    << "void synergy_glue_set_host(void* instance, void* host) {\n";
  for (const auto& field : importInstanceFields)
    c << "  ((" << instanceType << "*)instance)->" << field << " = host;\n";
  c << "}\n"
    << "void synergy_glue_free(void* instance) { Z_" << moduleName << "_free((" << instanceType
    << "*)instance); }\n"
    << "wasm_rt_memory_t* synergy_glue_memory(void* instance) { return &((" << instanceType
    << "*)instance)->" << glue.memoryField << "; }\n"
    << "wasm_rt_funcref_table_t* synergy_glue_table(void* instance) { return "
    << (tableField.empty() ? std::string("NULL")
                           : "&((" + instanceType + "*)instance)->" + tableField)
    << "; }\n\n";

  c << "static const struct { const char* name; int kind; void* address; } exports[] = {\n";
  for (const auto& e : exports)
    c << "  {" << cStringLiteral(e.name) << ", " << int(e.kind) << ", (void*)&" << e.symbol
      << "},\n";
  c << "  {NULL, 0, NULL}\n};\n"
    << "uint32_t synergy_glue_export_count(void) { return " << exports.size() << "; }\n"
    << "const char* synergy_glue_export_name(uint32_t i) { return exports[i].name; }\n"
    << "int synergy_glue_export_kind(uint32_t i) { return exports[i].kind; }\n"
    << "void* synergy_glue_export_address(uint32_t i) { return exports[i].address; }\n\n";

  c << "static const uint32_t global_offsets[] = {";
  for (const auto& g : globalFields) c << "offsetof(" << instanceType << ", " << g << "), ";
  c << "0};\nstatic const uint32_t global_sizes[] = {";
  for (const auto& g : globalFields) c << "sizeof(((" << instanceType << "*)0)->" << g << "), ";
  c << "0};\nstatic const char* const global_names[] = {";
  for (const auto& g : globalFields) c << cStringLiteral(g.substr(4)) << ", ";
  c << "NULL};\n"
    << "uint32_t synergy_glue_global_count(void) { return " << globalFields.size() << "; }\n"
    << "const char* synergy_glue_global_name(uint32_t i) { return global_names[i]; }\n"
    << "uint32_t synergy_glue_global_offset(uint32_t i) { return global_offsets[i]; }\n"
    << "uint32_t synergy_glue_global_size(uint32_t i) { return global_sizes[i]; }\n";
  glue.source = c.str();
  return true;
}

}  // namespace synergy::granule
