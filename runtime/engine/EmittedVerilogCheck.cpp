//===- EmittedVerilogCheck.cpp - Only our own Verilog reaches Verilator ---===//
//
// This file implements checkEmittedVerilog. A small lexer splits the text
// into identifiers, system names, numbers and one-character punctuation, and
// refuses anything else at the first character that starts it: comments
// (Verilator's metacomments), string literals (DPI imports), backticks
// (directives, `include, `systemc_*, `verilator_config), backslashes
// (escaped identifiers), `(*` attributes, tabs and every byte outside
// printable ASCII. Each keyword and system name is held, as it is read, to
// the allow-lists below, which are exactly what EmitVerilog and the
// frontend's expression printer write.
// Last, the token stream must begin with the ABI header of
// hwlower/EngineManifest.h and hold no other module.
//
//===----------------------------------------------------------------------===//
#include "engine/EmittedVerilogCheck.h"

#include <cctype>
#include <set>
#include <vector>

#include "hwlower/EngineManifest.h"
#include "hwlower/VerilogKeywords.h"
#include "util/PrintableText.h"

namespace synergy::engine {

namespace {

struct Token {
  std::string_view text;
  unsigned line;
};

// The keywords EmitVerilog and the frontend print. Every other keyword, and
// so every construct that could reach host code, is refused.
bool isEmittedKeyword(std::string_view word) {
  static const std::set<std::string_view> keywords = {
      "module", "endmodule", "input", "output", "wire", "reg", "signed", "assign",
      "always", "initial", "begin", "end", "if", "else", "case", "casex", "casez",
      "endcase", "default", "for", "while", "function", "endfunction", "posedge", "integer",
      "real"};
  return keywords.count(word) != 0;
}

// The system functions expressions use to fix their signedness, and those of
// reals the frontend computes inline; system tasks never appear in the
// Verilog, they trap into the runtime instead.
bool isEmittedSystemName(std::string_view name) {
  return name == "$signed" || name == "$unsigned" || hwlower::isInlineRealSystemFunction(name);
}

bool isPunctuation(char c) {
  switch (c) {
    case '(': case ')': case '[': case ']': case '{': case '}': case ';': case ',':
    case ':': case '?': case '@': case '=': case '+': case '-': case '*': case '/':
    case '%': case '&': case '|': case '^': case '~': case '!': case '<': case '>':
      return true;
    default:
      return false;
  }
}

bool isIdentifierStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool isIdentifierChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

bool isBaseDigit(char base, char c) {
  if (c == '_' || c == 'x' || c == 'X' || c == 'z' || c == 'Z' || c == '?')
    return true;
  switch (base) {
    case 'b': return c == '0' || c == '1';
    case 'o': return c >= '0' && c <= '7';
    case 'd': return c >= '0' && c <= '9';
    default: return std::isxdigit(static_cast<unsigned char>(c)) != 0;
  }
}

class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}

  // All tokens, or nullopt with error() set at the first refused construct.
  std::optional<std::vector<Token>> run() {
    std::vector<Token> tokens;
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == ' ') {
        ++pos_;
      } else if (c == '\n') {
        ++line_;
        ++pos_;
      } else if (isIdentifierStart(c)) {
        tokens.push_back(take(span(pos_, isIdentifierChar)));
        if (pos_ < text_.size() && text_[pos_] == '$')
          return refuse("identifier with '$'", tokens.back().text.data() - text_.data());
        std::string_view word = tokens.back().text;
        if (hwlower::isVerilogKeyword(word) && !isEmittedKeyword(word))
          return refuseToken("keyword", word);
      } else if (c == '$') {
        size_t end = span(pos_ + 1, [](char d) { return isIdentifierChar(d) || d == '$'; });
        if (end == pos_ + 1)
          return refuse("lone '$'", pos_);
        tokens.push_back(take(end));
        if (!isEmittedSystemName(tokens.back().text))
          return refuseToken("system function", tokens.back().text);
      } else if (std::isdigit(static_cast<unsigned char>(c)) || c == '\'') {
        size_t start = pos_;
        if (!number())
          return refuse("malformed number", start);
        tokens.push_back({text_.substr(start, pos_ - start), line_});
      } else if (c == '/' && pos_ + 1 < text_.size() && (text_[pos_ + 1] == '/' || text_[pos_ + 1] == '*')) {
        return refuse("comment", pos_);
      } else if (c == '(' && nextNonSpace(pos_ + 1) == '*') {
        return refuse("attribute", pos_);
      } else if (c == '*' && nextNonSpace(pos_ + 1) == ')') {
        return refuse("attribute end", pos_);
      } else if (isPunctuation(c)) {
        tokens.push_back(take(pos_ + 1));
      } else if (c == '"') {
        return refuse("string literal", pos_);
      } else if (c == '`') {
        return refuse("compiler directive", pos_);
      } else if (c == '\\') {
        return refuse("escaped identifier", pos_);
      } else {
        return refuse("character", pos_);
      }
    }
    return tokens;
  }

  const std::string& error() const { return error_; }

 private:
  template <typename Pred>
  size_t span(size_t from, Pred pred) const {
    while (from < text_.size() && pred(text_[from])) ++from;
    return from;
  }

  char nextNonSpace(size_t from) const {
    while (from < text_.size() && (text_[from] == ' ' || text_[from] == '\n')) ++from;
    return from < text_.size() ? text_[from] : '\0';
  }

  Token take(size_t end) {
    Token token{text_.substr(pos_, end - pos_), line_};
    pos_ = end;
    return token;
  }

  // [size] ' [s] base digits, or a plain decimal. Reals are never emitted.
  bool number() {
    pos_ = span(pos_, [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
    if (pos_ >= text_.size() || text_[pos_] != '\'')
      return pos_ >= text_.size() || !isIdentifierChar(text_[pos_]);
    ++pos_;
    if (pos_ < text_.size() && (text_[pos_] == 's' || text_[pos_] == 'S'))
      ++pos_;
    if (pos_ >= text_.size())
      return false;
    char base = static_cast<char>(std::tolower(static_cast<unsigned char>(text_[pos_])));
    if (base != 'b' && base != 'o' && base != 'd' && base != 'h')
      return false;
    size_t digits = ++pos_;
    pos_ = span(pos_, [base](char c) { return isBaseDigit(base, c); });
    return pos_ > digits && (pos_ >= text_.size() || !isIdentifierChar(text_[pos_]));
  }

  std::nullopt_t refuseToken(const char* what, std::string_view token) {
    error_ = "line " + std::to_string(line_) + ": " + what + " '" + std::string(token) +
             "' is not one synergy-cc emits";
    return std::nullopt;
  }

  std::nullopt_t refuse(const char* what, size_t at) {
    error_ = "line " + std::to_string(line_) + ": " + what + " '" + excerpt(at) +
             "' is not something synergy-cc emits";
    return std::nullopt;
  }

  // Up to 24 characters from `at` on its line, non-printable bytes as \xHH,
  // so the message stays one line whatever the input holds.
  std::string excerpt(size_t at) const {
    std::string_view rest = text_.substr(at, 24);
    return util::printableText(rest.substr(0, rest.find('\n')), "'");
  }

  std::string_view text_;
  size_t pos_ = 0;
  unsigned line_ = 1;
  std::string error_;
};

std::string at(const Token& token) { return "line " + std::to_string(token.line) + ": "; }

}  // namespace

std::optional<std::string> checkEmittedVerilog(std::string_view verilog) {
  Lexer lexer(verilog);
  auto tokens = lexer.run();
  if (!tokens)
    return lexer.error();
  Lexer headerLexer(hwlower::kEngineModuleHeader);
  std::vector<Token> header = *headerLexer.run();
  for (size_t i = 0; i < header.size(); ++i) {
    if (i >= tokens->size())
      return "the Verilog ends inside the module header";
    const Token& token = (*tokens)[i];
    if (token.text != header[i].text)
      return at(token) + "the module header differs from the engine ABI's: '" + std::string(token.text) +
             "' where synergy-cc writes '" + std::string(header[i].text) + "'";
  }
  for (size_t i = header.size(); i < tokens->size(); ++i) {
    const Token& token = (*tokens)[i];
    bool last = i + 1 == tokens->size();
    if (token.text == "module")
      return at(token) + "a second module; synergy-cc emits only synergy_engine";
    if (token.text == "endmodule" && !last)
      return at(token) + "text after 'endmodule'";
  }
  if (tokens->back().text != "endmodule")
    return "the Verilog does not end with 'endmodule'";
  return std::nullopt;
}

}  // namespace synergy::engine
