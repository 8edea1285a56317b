//===- SoftwareCompiler.cpp - emitted Verilog -> software engine program ---===//
//
// This file implements compileSoftwareProgram in five steps:
//   1. lex the module into identifiers, system names, numbers and operators;
//   2. parse it by recursive descent, resolving each identifier to its
//      variable or function as it is read (EmitVerilog declares every name
//      before its use), and sizing each expression as it is built: the
//      self-determined width and signedness bottom-up, then, once the
//      expression is complete, the context ones top-down (IEEE 1364 5.4-5.5);
//   3. levelize the continuous assigns and `always @*` blocks by the
//      variables they read and write;
//   4. turn the state machine's runs of state tests into table lookups
//      (SoftwareStateDispatch.h);
//   5. compile the narrow expressions to stack-machine code
//      (SoftwareExprCode.h).
// A refusal unwinds with a file-local exception that compileSoftwareProgram
// turns into its one-line message; nothing escapes this file.
//
//===----------------------------------------------------------------------===//
#include "engine/SoftwareCompiler.h"

#include "engine/SoftwareExprCode.h"
#include "engine/SoftwareStateDispatch.h"
#include "engine/SoftwareWideWords.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

namespace synergy::engine::software {

namespace {

// Deeper nesting than EmitVerilog ever prints is refused, not recursed into.
constexpr unsigned kMaxNesting = 1024;
// The software engine's storage, in 64-bit words: the manifest bounds the
// saved state to 2^24 elements; nets and ROMs the host never sees add to it.
constexpr uint64_t kMaxSlots = uint64_t(1) << 26;

struct Refusal {
  std::string message;
};

enum class TokenKind { Identifier, SystemName, Number, Operator, End };

struct Token {
  TokenKind kind = TokenKind::End;
  std::string_view text;
  unsigned line = 0;
};

uint64_t maskOf(uint32_t width) { return width >= 64 ? ~uint64_t(0) : (uint64_t(1) << width) - 1; }

std::vector<Token> lex(std::string_view text) {
  static const char* const operators[] = {"<<<", ">>>", "===", "!==", "<<", ">>", "<=", ">=", "==", "!=", "&&",
                                          "||",  "~&",  "~|",  "~^",  "^~", "**", "+:", "-:"};
  std::vector<Token> tokens;
  unsigned line = 1;
  size_t pos = 0;
  auto identifierChar = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  while (pos < text.size()) {
    char c = text[pos];
    if (c == '\n') {
      ++line;
      ++pos;
      continue;
    }
    if (c == ' ') {
      ++pos;
      continue;
    }
    size_t start = pos;
    TokenKind kind = TokenKind::Operator;
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      while (pos < text.size() && identifierChar(text[pos])) ++pos;
      kind = TokenKind::Identifier;
    } else if (c == '$') {
      ++pos;
      while (pos < text.size() && identifierChar(text[pos])) ++pos;
      kind = TokenKind::SystemName;
    } else if (std::isdigit(static_cast<unsigned char>(c)) || c == '\'') {
      while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) ++pos;
      if (pos < text.size() && text[pos] == '\'') {
        ++pos;
        if (pos < text.size() && (text[pos] == 's' || text[pos] == 'S')) ++pos;
        if (pos < text.size()) ++pos;  // the base letter, checked by the parser
        while (pos < text.size() && (identifierChar(text[pos]) || text[pos] == '?')) ++pos;
      }
      kind = TokenKind::Number;
    } else {
      size_t length = 1;
      for (const char* op : operators) {
        std::string_view candidate(op);
        if (text.substr(pos, candidate.size()) == candidate) {
          length = candidate.size();
          break;
        }
      }
      if (length == 1 && !std::strchr("()[]{};,:?@=+-*/%&|^~!<>#.", c))
        throw Refusal{"line " + std::to_string(line) + ": unexpected character"};
      pos += length;
    }
    tokens.push_back({kind, text.substr(start, pos - start), line});
  }
  tokens.push_back({TokenKind::End, {}, line});
  return tokens;
}

// A node is wide when it computes at, or reads, more than one word; the
// primary that reads a wide variable was marked when it was parsed.
void markWide(Expr& e) {
  e.wide = e.wide || e.width > kMaxWordWidth || e.selfWidth > kMaxWordWidth;
  for (const Expr& operand : e.operands) e.wide = e.wide || operand.wide;
}

bool isContextOp(ExprOp op) {
  switch (op) {
    case ExprOp::Negate: case ExprOp::Identity: case ExprOp::BitNot: case ExprOp::Add: case ExprOp::Sub:
    case ExprOp::Mul: case ExprOp::Div: case ExprOp::Mod: case ExprOp::And: case ExprOp::Or: case ExprOp::Xor:
    case ExprOp::Xnor:
      return true;
    default:
      return false;
  }
}

bool isComparison(ExprOp op) {
  return op == ExprOp::Less || op == ExprOp::LessEqual || op == ExprOp::Greater || op == ExprOp::GreaterEqual ||
         op == ExprOp::Equal || op == ExprOp::NotEqual;
}

bool isShift(ExprOp op) {
  return op == ExprOp::ShiftLeft || op == ExprOp::ShiftRight || op == ExprOp::ArithShiftRight;
}

// A constant's words at `width`: its self-determined value, extended as
// `isSigned` says. Applying a context twice is harmless, because the low
// selfWidth bits always hold the constant itself.
Words constantAt(const Expr& e, uint32_t width, bool isSigned) {
  Words self = e.selfWidth > kMaxWordWidth ? e.wideValue : Words{e.value};
  return resizeWords(self, e.selfWidth, width, isSigned);
}

// Gives every node of `e` the width and signedness of its context (the
// top-down half of Verilog expression sizing). Operands that are
// self-determined are sized on their own.
void applyContext(Expr& e, uint32_t width, bool isSigned, unsigned line) {
  if (width > kMaxWideWidth)
    throw Refusal{"line " + std::to_string(line) + ": an expression wider than " + std::to_string(kMaxWideWidth) +
                  " bits"};
  auto self = [line](Expr& operand) { applyContext(operand, operand.selfWidth, operand.selfSigned, line); };
  if (e.isReal) {
    // A real is a real in any context; its operands were typed when parsed.
    e.width = kMaxWordWidth;
    e.isSigned = false;
    for (Expr& operand : e.operands) self(operand);
    markWide(e);
    return;
  }
  e.width = width;
  e.isSigned = isSigned;
  if (isContextOp(e.op)) {
    for (Expr& operand : e.operands) applyContext(operand, width, isSigned, line);
  } else if (e.op == ExprOp::Pow || isShift(e.op)) {
    applyContext(e.operands[0], width, isSigned, line);
    self(e.operands[1]);
  } else if (e.op == ExprOp::Conditional) {
    self(e.operands[0]);
    applyContext(e.operands[1], width, isSigned, line);
    applyContext(e.operands[2], width, isSigned, line);
  } else if (isComparison(e.op)) {
    uint32_t common = std::max(e.operands[0].selfWidth, e.operands[1].selfWidth);
    bool bothSigned = e.operands[0].selfSigned && e.operands[1].selfSigned;
    applyContext(e.operands[0], common, bothSigned, line);
    applyContext(e.operands[1], common, bothSigned, line);
  } else if (e.op == ExprOp::Constant) {
    Words value = constantAt(e, width, isSigned);
    e.value = value[0];
    if (width > kMaxWordWidth)
      e.wideValue = std::move(value);
  } else if (e.op != ExprOp::Call) {
    // A call's arguments were sized for their inputs when it was parsed.
    for (Expr& operand : e.operands) self(operand);
  }
  markWide(e);
}

class Parser {
 public:
  explicit Parser(std::string_view verilog) : tokens_(lex(verilog)) {}

  std::shared_ptr<Program> run() {
    header();
    while (!acceptWord("endmodule")) moduleItem();
    if (peek().kind != TokenKind::End)
      refuse("text after endmodule");
    size_t end = pos_;
    for (size_t k = 0; k < functionBodies_.size(); ++k) {
      pos_ = functionBodies_[k].start;
      localScope_ = &functionBodies_[k].scope;
      currentFunction_ = k;
      program_->functions[k].body = statement();
      expect("endfunction");
    }
    localScope_ = nullptr;
    currentFunction_.reset();
    refuseRecursion();
    for (size_t start : processes_) {
      pos_ = start;
      process();
    }
    pos_ = end;
    if (!clockedSeen_)
      refuse("no always @(posedge __clk) block");
    levelize();
    program_->combinational.clear();
    for (size_t index : order_) {
      CombinationalNode& node = combinational_[index];
      CombinationalInputs inputs;
      inputs.reads.assign(node.reads.begin(), node.reads.end());
      inputs.readsOwnWrites = std::any_of(node.reads.begin(), node.reads.end(),
                                          [&](uint32_t variable) { return node.writes.count(variable) != 0; });
      program_->combinational.push_back(std::move(node.stmt));
      program_->combinationalInputs.push_back(std::move(inputs));
    }
    formStateDispatch(*program_);
    lowerExpressionsToCode(*program_);
    return program_;
  }

 private:
  struct CombinationalNode {
    Stmt stmt;
    std::set<uint32_t> reads, writes;
  };

  // Tokens.
  const Token& peek(size_t ahead = 0) const { return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)]; }
  const Token& next() {
    const Token& token = peek();
    if (pos_ < tokens_.size() - 1) ++pos_;
    return token;
  }
  bool is(std::string_view text) const { return peek().kind != TokenKind::End && peek().text == text; }
  bool acceptWord(std::string_view text) {
    if (!is(text)) return false;
    next();
    return true;
  }
  void expect(std::string_view text) {
    if (!acceptWord(text))
      refuse("expected '" + std::string(text) + "' before '" + std::string(peek().text) + "'");
  }
  std::string identifier() {
    if (peek().kind != TokenKind::Identifier)
      refuse("expected a name before '" + std::string(peek().text) + "'");
    return std::string(next().text);
  }
  [[noreturn]] void refuse(const std::string& message) const {
    throw Refusal{"line " + std::to_string(peek().line) + ": " + message};
  }

  struct Nesting {
    explicit Nesting(Parser& parser) : parser_(parser) {
      if (++parser_.depth_ > kMaxNesting)
        parser_.refuse("nesting deeper than " + std::to_string(kMaxNesting));
    }
    ~Nesting() { --parser_.depth_; }
    Parser& parser_;
  };

  // Declarations.
  uint32_t declare(const std::string& name, uint32_t width, bool isSigned, uint64_t depth, int64_t lowIndex,
                   bool isReal = false) {
    if (width == 0 || width > kMaxWideWidth)
      refuse("variable '" + name + "' is wider than " + std::to_string(kMaxWideWidth) + " bits");
    auto& scope = localScope_ ? *localScope_ : globals_;
    if (scope.count(name))
      refuse("'" + name + "' declared twice");
    // Both factors are below 2^26 and 2^11, so the product cannot overflow.
    uint64_t words = std::max<uint64_t>(depth, 1) * wordsFor(width);
    if (words > kMaxSlots || program_->slotCount + words > kMaxSlots)
      refuse("variable '" + name + "' makes the design larger than the software engine holds");
    Variable variable{name, width, isSigned, isReal, depth, lowIndex, program_->slotCount, wordsFor(width)};
    program_->slotCount += words;
    program_->variables.push_back(std::move(variable));
    uint32_t id = static_cast<uint32_t>(program_->variables.size() - 1);
    scope[name] = id;
    return id;
  }

  uint32_t lookup(const std::string& name) const {
    if (localScope_)
      if (auto found = localScope_->find(name); found != localScope_->end()) return found->second;
    auto found = globals_.find(name);
    if (found == globals_.end())
      refuse("'" + name + "' is not declared");
    return found->second;
  }

  int64_t constantInteger() {
    Expr e = expression();
    if (e.op != ExprOp::Constant)
      refuse("expected a constant");
    uint64_t value = e.value & maskOf(e.selfWidth);
    if (e.selfSigned && e.selfWidth < 64 && (value >> (e.selfWidth - 1)) & 1)
      value |= ~maskOf(e.selfWidth);
    return static_cast<int64_t>(value);
  }

  // [msb:lsb] of a vector: EmitVerilog writes [w-1:0] only.
  uint32_t optionalRange() {
    if (!acceptWord("["))
      return 1;
    int64_t msb = constantInteger();
    expect(":");
    int64_t lsb = constantInteger();
    expect("]");
    if (lsb != 0 || msb < 0)
      refuse("a vector range other than [N:0]");
    if (msb >= int64_t(kMaxWideWidth))
      refuse("a vector wider than " + std::to_string(kMaxWideWidth) + " bits");
    return static_cast<uint32_t>(msb + 1);
  }

  // [a:b] after a name: a memory of |a-b|+1 elements.
  void optionalDimension(uint64_t& depth, int64_t& lowIndex) {
    depth = 0;
    lowIndex = 0;
    if (!acceptWord("["))
      return;
    int64_t a = constantInteger();
    expect(":");
    int64_t b = constantInteger();
    expect("]");
    lowIndex = std::min(a, b);
    uint64_t span = static_cast<uint64_t>(std::max(a, b)) - static_cast<uint64_t>(lowIndex);
    if (span >= kMaxSlots)
      refuse("a memory larger than the software engine holds");
    depth = span + 1;
    if (is("["))
      refuse("a memory of more than one dimension");
  }

  void header() {
    expect("module");
    expect("synergy_engine");
    expect("(");
    do {
      if (!acceptWord("input") && !acceptWord("output"))
        refuse("expected a port");
      if (!acceptWord("wire"))
        expect("reg");
      uint32_t width = optionalRange();
      declare(identifier(), width, false, 0, 0);
    } while (acceptWord(","));
    expect(")");
    expect(";");
    auto port = [&](const char* name) { return lookup(name); };
    Program& p = *program_;
    p.clk = port("__clk");
    p.cont = port("__cont");
    p.update = port("__update");
    p.task = port("__task");
    p.done = port("__done");
    p.thereAreUpdates = port("__there_are_updates");
    p.openLoop = port("__open_loop");
    p.openLoopN = port("__open_loop_n");
    p.openLoopActive = port("__open_loop_active");
    p.ticksLeft = port("__ticks_left");
    p.saId = port("__sa_id");
    p.saIndex = port("__sa_index");
    p.saWord = port("__sa_word");
    p.saWe = port("__sa_we");
    p.saWdata = port("__sa_wdata");
    p.saRdata = port("__sa_rdata");
  }

  // reg/wire/integer declarations, at module level or in a function.
  void declaration(std::vector<Stmt>* initialisers) {
    std::string kind(next().text);
    bool isSigned = kind == "integer", isReal = kind == "real";
    uint32_t width = isReal ? kMaxWordWidth : 32;
    if (kind != "integer" && !isReal) {
      isSigned = acceptWord("signed");
      width = optionalRange();
    }
    do {
      std::string name = identifier();
      uint64_t depth = 0;
      int64_t lowIndex = 0;
      optionalDimension(depth, lowIndex);
      uint32_t id = declare(name, width, isSigned, depth, lowIndex, isReal);
      if (acceptWord("=")) {
        if (kind == "wire" || depth || !initialisers)
          refuse("an initialised net or memory");
        Stmt init;
        init.op = StmtOp::Assign;
        init.targets.push_back(wholeVariable(id));
        init.expr = expression();
        assignmentContext(init);
        initialisers->push_back(std::move(init));
      }
    } while (acceptWord(","));
    expect(";");
  }

  LValue wholeVariable(uint32_t id) const {
    LValue target;
    target.variable = id;
    target.width = program_->variables[id].width;
    return target;
  }

  void moduleItem() {
    const Token& token = peek();
    if (token.kind != TokenKind::Identifier)
      refuse("unexpected '" + std::string(token.text) + "' at module level");
    if (is("reg") || is("wire") || is("integer")) {
      declaration(&program_->powerOn);
    } else if (is("real")) {
      refuse("a real variable");
    } else if (is("assign") || is("initial") || is("always")) {
      // Processes may call functions declared after them: they are parsed
      // once every declaration has been read.
      processes_.push_back(pos_);
      skipProcess();
    } else if (acceptWord("function")) {
      function();
    } else {
      refuse("'" + std::string(token.text) + "' at module level");
    }
  }

  // Skips an assign up to its ';', or an initial or always block: its event
  // control and the begin-end body EmitVerilog always gives it.
  void skipProcess() {
    if (acceptWord("assign")) {
      while (!acceptWord(";"))
        if (next().kind == TokenKind::End)
          refuse("unterminated assign");
      return;
    }
    next();
    while (!is("begin"))
      if (next().kind == TokenKind::End || is(";"))
        refuse("an initial or always block without begin");
    unsigned depth = 0;
    do {
      if (is("begin"))
        ++depth;
      else if (is("end"))
        --depth;
      if (next().kind == TokenKind::End)
        refuse("unterminated begin");
    } while (depth);
  }

  void process() {
    if (acceptWord("assign")) {
      CombinationalNode node;
      node.stmt = assignment();
      expect(";");
      addCombinational(std::move(node));
    } else if (acceptWord("initial")) {
      program_->powerOn.push_back(statement());
    } else if (acceptWord("always")) {
      expect("@");
      if (acceptWord("*") || (is("(") && peek(1).text == "*" && peek(2).text == ")" && (pos_ += 3))) {
        CombinationalNode node;
        node.stmt = statement();
        addCombinational(std::move(node));
      } else {
        expect("(");
        expect("posedge");
        expect("__clk");
        expect(")");
        clockedSeen_ = true;
        program_->clocked.push_back(statement());
      }
    }
  }

  void function() {
    Function fn;
    // A real function's result is a real: 64 bits, as every real here.
    bool isReal = acceptWord("real");
    bool isSigned = !isReal && acceptWord("signed");
    uint32_t width = isReal ? kMaxWordWidth : 32;
    if (!isReal && acceptWord("integer"))
      isSigned = true;
    else if (!isReal)
      width = optionalRange();
    fn.name = identifier();
    expect(";");
    if (functionIds_.count(fn.name) || globals_.count(fn.name))
      refuse("function '" + fn.name + "' declared twice");
    std::map<std::string, uint32_t> scope;
    localScope_ = &scope;
    fn.result = declare(fn.name, width, isSigned, 0, 0, isReal);
    while (is("input") || is("reg") || is("integer") || is("real")) {
      if (acceptWord("input")) {
        bool inputReal = acceptWord("real");
        bool inputSigned = !inputReal && acceptWord("signed");
        uint32_t inputWidth = inputReal ? kMaxWordWidth : optionalRange();
        do fn.inputs.push_back(declare(identifier(), inputWidth, inputSigned, 0, 0, inputReal));
        while (acceptWord(","));
        expect(";");
      } else {
        declaration(nullptr);
      }
    }
    // The body may call functions declared later: it is parsed once all
    // of them are known.
    functionBodies_.push_back({pos_, std::move(scope), {}});
    while (!is("endfunction"))
      if (next().kind == TokenKind::End)
        refuse("unterminated function");
    next();
    localScope_ = nullptr;
    program_->functions.push_back(std::move(fn));
    functionIds_[program_->functions.back().name] = static_cast<uint32_t>(program_->functions.size() - 1);
  }

  // Statements.
  Stmt statement() {
    Nesting nesting(*this);
    Stmt st;
    if (acceptWord(";"))
      return st;
    if (acceptWord("begin")) {
      if (is(":"))
        refuse("a named block");
      st.op = StmtOp::Block;
      while (!acceptWord("end")) {
        if (peek().kind == TokenKind::End)
          refuse("unterminated begin");
        st.children.push_back(statement());
      }
      return st;
    }
    if (acceptWord("if")) {
      st.op = StmtOp::If;
      st.expr = condition();
      st.children.push_back(statement());
      st.children.push_back(acceptWord("else") ? statement() : Stmt{});
      return st;
    }
    if (is("case") || is("casex") || is("casez"))
      return caseStatement();
    if (acceptWord("for")) {
      st.op = StmtOp::For;
      expect("(");
      st.children.push_back(assignment());
      expect(";");
      st.expr = selfDetermined(expression());
      expect(";");
      st.children.push_back(assignment());
      expect(")");
      st.children.push_back(statement());
      return st;
    }
    if (acceptWord("while")) {
      st.op = StmtOp::While;
      st.expr = condition();
      st.children.push_back(statement());
      return st;
    }
    if (peek().kind != TokenKind::Identifier && !is("{"))
      refuse("a statement starting with '" + std::string(peek().text) + "'");
    st = assignment();
    expect(";");
    return st;
  }

  Expr condition() {
    expect("(");
    Expr e = selfDetermined(expression());
    expect(")");
    if (e.isReal)
      refuse("a real as a condition");
    return e;
  }

  Stmt caseStatement() {
    Stmt st;
    st.op = StmtOp::Case;
    std::string keyword(next().text);
    st.match = keyword == "casez" ? CaseMatch::WildcardZ : keyword == "casex" ? CaseMatch::WildcardXZ : CaseMatch::Exact;
    expect("(");
    st.expr = expression();
    expect(")");
    if (st.expr.isReal)
      refuse("a case on a real");
    uint32_t common = st.expr.selfWidth;
    bool allSigned = st.expr.selfSigned;
    while (!acceptWord("endcase")) {
      if (peek().kind == TokenKind::End)
        refuse("unterminated case");
      CaseItem item;
      if (acceptWord("default")) {
        acceptWord(":");
      } else {
        do {
          item.labels.push_back(expression());
          common = std::max(common, item.labels.back().selfWidth);
          allSigned = allSigned && item.labels.back().selfSigned;
        } while (acceptWord(","));
        expect(":");
      }
      item.body = static_cast<uint32_t>(st.children.size());
      st.children.push_back(statement());
      st.items.push_back(std::move(item));
    }
    unsigned line = peek().line;
    applyContext(st.expr, common, allSigned, line);
    for (CaseItem& item : st.items)
      for (Expr& label : item.labels) {
        uint64_t wildcard = label.wildcard, highImpedance = label.highImpedance;
        applyContext(label, common, allSigned, line);
        label.wildcard = wildcard;
        label.highImpedance = highImpedance;
        st.wide = st.wide || label.wide;
      }
    st.wide = st.wide || st.expr.wide;
    return st;
  }

  // lvalue = expression (no semicolon).
  Stmt assignment() {
    Stmt st;
    st.op = StmtOp::Assign;
    if (acceptWord("{")) {
      do st.targets.push_back(lvalue());
      while (acceptWord(","));
      expect("}");
    } else {
      st.targets.push_back(lvalue());
    }
    expect("=");
    st.expr = expression();
    assignmentContext(st);
    return st;
  }

  void assignmentContext(Stmt& st) {
    uint32_t width = 0;
    bool wideTarget = false;
    for (const LValue& target : st.targets) {
      width += target.width;
      wideTarget = wideTarget || program_->variables[target.variable].width > kMaxWordWidth;
    }
    const LValue& first = st.targets.front();
    bool realTarget = st.targets.size() == 1 && !first.hasBits && program_->variables[first.variable].isReal;
    if (realTarget || st.expr.isReal) {
      if (st.targets.size() != 1 || first.hasBits)
        refuse("a real assigned to a concatenation or a part select");
      st.expr = convertedFor(selfDetermined(std::move(st.expr)), realTarget, width);
    }
    if (width > kMaxWideWidth)
      refuse("an assignment wider than " + std::to_string(kMaxWideWidth) + " bits");
    applyContext(st.expr, std::max(width, st.expr.selfWidth), st.expr.selfSigned, peek().line);
    st.wide = wideTarget || width > kMaxWordWidth || st.expr.wide;
  }

  LValue lvalue() {
    uint32_t id = lookup(identifier());
    const Variable& variable = program_->variables[id];
    LValue target = wholeVariable(id);
    if (variable.depth) {
      if (!is("["))
        refuse("a whole memory '" + variable.name + "' as a value");
      next();
      target.hasElement = true;
      target.index.push_back(selfDetermined(expression()));
      expect("]");
    }
    if (acceptWord("[")) {
      Expr select;
      bitRange(select, variable.width);
      target.hasBits = true;
      target.width = static_cast<uint32_t>(select.value);
      target.offset = select.offset;
      target.index.push_back(std::move(select.operands[0]));
    }
    return target;
  }

  // After '[' of a bit or part select: fills value (width), offset and
  // operands[0] (the index expression), consumes the ']'.
  void bitRange(Expr& select, uint32_t variableWidth) {
    Expr first = selfDetermined(expression());
    select.value = 1;
    if (acceptWord(":")) {
      if (first.op != ExprOp::Constant)
        refuse("a part select with a variable bound");
      int64_t msb = static_cast<int64_t>(first.value);
      Expr lsb = selfDetermined(expression());
      if (lsb.op != ExprOp::Constant || static_cast<int64_t>(lsb.value) > msb)
        refuse("a part select that is not [constant msb:constant lsb]");
      select.value = static_cast<uint64_t>(msb - static_cast<int64_t>(lsb.value) + 1);
      first = std::move(lsb);
    } else if (acceptWord("+:") || (is("-:") && (select.offset = 1, next(), true))) {
      int64_t width = constantInteger();
      if (width <= 0 || width > int64_t(kMaxWideWidth))
        refuse("an indexed part select of " + std::to_string(width) + " bits");
      select.value = static_cast<uint64_t>(width);
      select.offset = select.offset ? -(width - 1) : 0;
    }
    expect("]");
    if (select.value > variableWidth && select.value > kMaxWideWidth)
      refuse("a select wider than " + std::to_string(kMaxWideWidth) + " bits");
    select.operands.insert(select.operands.begin(), std::move(first));
  }

  // Expressions: precedence climbing over Verilog's binary operators.
  Expr selfDetermined(Expr e) {
    applyContext(e, e.selfWidth, e.selfSigned, peek().line);
    return e;
  }

  Expr expression() {
    Nesting nesting(*this);
    Expr cond = binary(0);
    if (!acceptWord("?"))
      return cond;
    Expr then = expression();
    expect(":");
    Expr otherwise = expression();
    if (cond.isReal)
      refuse("a real as a condition");
    Expr e;
    e.op = ExprOp::Conditional;
    if (then.isReal || otherwise.isReal) {
      then = realOperand(selfDetermined(std::move(then)));
      otherwise = realOperand(selfDetermined(std::move(otherwise)));
      e.isReal = true;
    }
    e.selfWidth = std::max(then.selfWidth, otherwise.selfWidth);
    e.selfSigned = then.selfSigned && otherwise.selfSigned;
    e.operands = {std::move(cond), std::move(then), std::move(otherwise)};
    return e;
  }

  static int precedence(std::string_view op, ExprOp& out) {
    static const std::unordered_map<std::string_view, std::pair<int, ExprOp>> table = {
        {"||", {1, ExprOp::LogicalOr}},   {"&&", {2, ExprOp::LogicalAnd}},  {"|", {3, ExprOp::Or}},
        {"^", {4, ExprOp::Xor}},          {"~^", {4, ExprOp::Xnor}},        {"^~", {4, ExprOp::Xnor}},
        {"&", {5, ExprOp::And}},          {"==", {6, ExprOp::Equal}},       {"!=", {6, ExprOp::NotEqual}},
        {"===", {6, ExprOp::Equal}},      {"!==", {6, ExprOp::NotEqual}},   {"<", {7, ExprOp::Less}},
        {"<=", {7, ExprOp::LessEqual}},   {">", {7, ExprOp::Greater}},      {">=", {7, ExprOp::GreaterEqual}},
        {"<<", {8, ExprOp::ShiftLeft}},   {">>", {8, ExprOp::ShiftRight}},  {"<<<", {8, ExprOp::ShiftLeft}},
        {">>>", {8, ExprOp::ArithShiftRight}}, {"+", {9, ExprOp::Add}},     {"-", {9, ExprOp::Sub}},
        {"*", {10, ExprOp::Mul}},         {"/", {10, ExprOp::Div}},         {"%", {10, ExprOp::Mod}},
        {"**", {11, ExprOp::Pow}}};
    auto found = table.find(op);
    if (found == table.end())
      return -1;
    out = found->second.second;
    return found->second.first;
  }

  Expr binary(int minimum) {
    Nesting nesting(*this);
    Expr left = unary();
    for (;;) {
      ExprOp op;
      int level = peek().kind == TokenKind::Operator ? precedence(peek().text, op) : -1;
      if (level < 0 || level < minimum)
        return left;
      next();
      // ** is right-associative; the rest associate to the left.
      Expr right = binary(op == ExprOp::Pow ? level : level + 1);
      if (left.isReal || right.isReal) {
        left = realBinary(op, std::move(left), std::move(right));
        continue;
      }
      Expr e;
      e.op = op;
      if (isComparison(op) || op == ExprOp::LogicalAnd || op == ExprOp::LogicalOr) {
        e.selfWidth = 1;
        e.selfSigned = false;
      } else if (isShift(op) || op == ExprOp::Pow) {
        e.selfWidth = left.selfWidth;
        e.selfSigned = op == ExprOp::Pow ? left.selfSigned && right.selfSigned : left.selfSigned;
      } else {
        e.selfWidth = std::max(left.selfWidth, right.selfWidth);
        e.selfSigned = left.selfSigned && right.selfSigned;
      }
      if (op == ExprOp::LogicalAnd || op == ExprOp::LogicalOr) {
        left = selfDetermined(std::move(left));
        right = selfDetermined(std::move(right));
      }
      e.operands = {std::move(left), std::move(right)};
      left = std::move(e);
    }
  }

  // The frontend gives real operators real operands and writes !, unary
  // minus and conditions on reals as comparisons; the rest is refused.
  Expr realBinary(ExprOp op, Expr left, Expr right) {
    static const std::unordered_map<ExprOp, ExprOp> realOps = {
        {ExprOp::Add, ExprOp::RealAdd},   {ExprOp::Sub, ExprOp::RealSub},
        {ExprOp::Mul, ExprOp::RealMul},   {ExprOp::Div, ExprOp::RealDiv},
        {ExprOp::Pow, ExprOp::RealPow},   {ExprOp::Less, ExprOp::RealLess},
        {ExprOp::LessEqual, ExprOp::RealLessEqual}, {ExprOp::Greater, ExprOp::RealGreater},
        {ExprOp::GreaterEqual, ExprOp::RealGreaterEqual}, {ExprOp::Equal, ExprOp::RealEqual},
        {ExprOp::NotEqual, ExprOp::RealNotEqual}};
    auto found = realOps.find(op);
    if (found == realOps.end())
      refuse("an operator other than + - * / ** or a comparison on a real");
    Expr e;
    e.op = found->second;
    e.isReal = !isComparison(op);
    e.selfWidth = e.isReal ? kMaxWordWidth : 1;
    e.operands = {realOperand(selfDetermined(std::move(left))), realOperand(selfDetermined(std::move(right)))};
    markWide(e);
    return e;
  }

  Expr unary() {
    Nesting nesting(*this);
    static const std::unordered_map<std::string_view, ExprOp> table = {
        {"-", ExprOp::Negate},     {"+", ExprOp::Identity},   {"~", ExprOp::BitNot},    {"!", ExprOp::LogicalNot},
        {"&", ExprOp::ReduceAnd},  {"|", ExprOp::ReduceOr},   {"^", ExprOp::ReduceXor}, {"~&", ExprOp::ReduceNand},
        {"~|", ExprOp::ReduceNor}, {"~^", ExprOp::ReduceXnor}, {"^~", ExprOp::ReduceXnor}};
    if (peek().kind == TokenKind::Operator)
      if (auto found = table.find(peek().text); found != table.end()) {
        next();
        Expr operand = unary();
        if (operand.isReal)
          refuse("a unary operator on a real");
        Expr e;
        e.op = found->second;
        if (isContextOp(e.op)) {
          e.selfWidth = operand.selfWidth;
          e.selfSigned = operand.selfSigned;
        } else {
          operand = selfDetermined(std::move(operand));
        }
        e.operands.push_back(std::move(operand));
        return e;
      }
    return primary();
  }

  Expr primary() {
    const Token& token = peek();
    if (token.kind == TokenKind::Number)
      return number(next());
    if (acceptWord("(")) {
      Expr e = expression();
      expect(")");
      return e;
    }
    if (acceptWord("{"))
      return concatenation();
    if (token.kind == TokenKind::SystemName)
      return systemFunction(std::string(next().text));
    if (token.kind != TokenKind::Identifier)
      refuse("an expression starting with '" + std::string(token.text) + "'");
    std::string name = identifier();
    if (is("("))
      return call(name);
    uint32_t id = lookup(name);
    const Variable& variable = program_->variables[id];
    Expr e;
    e.target = id;
    e.op = ExprOp::Variable;
    e.selfWidth = variable.width;
    e.selfSigned = variable.isSigned;
    e.isReal = variable.isReal;
    e.wide = variable.width > kMaxWordWidth;
    if (variable.depth) {
      if (!acceptWord("["))
        refuse("a whole memory '" + name + "' as a value");
      e.op = ExprOp::Element;
      e.operands.push_back(selfDetermined(expression()));
      expect("]");
    }
    if (acceptWord("[")) {
      Expr select;
      select.op = ExprOp::Select;
      select.target = id;
      bitRange(select, variable.width);
      select.selfWidth = static_cast<uint32_t>(select.value);
      select.selfSigned = false;
      select.wide = variable.width > kMaxWordWidth;
      if (e.op == ExprOp::Element) {
        select.hasElement = true;
        select.operands.push_back(std::move(e.operands[0]));
      }
      return select;
    }
    return e;
  }

  // $signed and $unsigned; the real conversions and functions the frontend
  // writes inline ($realtobits and $bitstoreal only retype the 64 bits).
  Expr systemFunction(const std::string& name) {
    static const std::unordered_map<std::string_view, RealFunction> mathFunctions = {
        {"$sqrt", RealFunction::Sqrt},   {"$ln", RealFunction::Ln},       {"$log10", RealFunction::Log10},
        {"$exp", RealFunction::Exp},     {"$pow", RealFunction::Pow},     {"$floor", RealFunction::Floor},
        {"$ceil", RealFunction::Ceil},   {"$sin", RealFunction::Sin},     {"$cos", RealFunction::Cos},
        {"$tan", RealFunction::Tan},     {"$asin", RealFunction::Asin},   {"$acos", RealFunction::Acos},
        {"$atan", RealFunction::Atan},   {"$atan2", RealFunction::Atan2}, {"$hypot", RealFunction::Hypot},
        {"$sinh", RealFunction::Sinh},   {"$cosh", RealFunction::Cosh},   {"$tanh", RealFunction::Tanh},
        {"$asinh", RealFunction::Asinh}, {"$acosh", RealFunction::Acosh}, {"$atanh", RealFunction::Atanh}};
    Expr e;
    expect("(");
    Expr inner = selfDetermined(expression());
    if (name == "$signed" || name == "$unsigned") {
      if (inner.isReal)
        refuse(name + " of a real");
      e.op = ExprOp::Cast;
      e.selfWidth = inner.selfWidth;
      e.selfSigned = name == "$signed";
    } else if (name == "$realtobits" || name == "$bitstoreal") {
      bool toReal = name == "$bitstoreal";
      if (inner.isReal == toReal || inner.selfWidth != kMaxWordWidth)
        refuse(name + " of a " + (inner.isReal ? "real" : std::to_string(inner.selfWidth) + "-bit value"));
      e.op = ExprOp::Cast;
      e.selfWidth = kMaxWordWidth;
      e.isReal = toReal;
    } else if (name == "$rtoi") {
      e.op = ExprOp::RealTruncate;
      e.selfWidth = 32;
      e.selfSigned = true;
      inner = realOperand(std::move(inner));
    } else if (name == "$itor") {
      if (inner.isReal)
        refuse("$itor of a real");
      e.op = ExprOp::IntegerToReal;
      e.selfWidth = kMaxWordWidth;
      e.isReal = true;
    } else if (auto found = mathFunctions.find(name); found != mathFunctions.end()) {
      e.op = ExprOp::RealMath;
      e.target = static_cast<uint32_t>(found->second);
      e.selfWidth = kMaxWordWidth;
      e.isReal = true;
      inner = realOperand(std::move(inner));
      bool binary = found->second == RealFunction::Pow || found->second == RealFunction::Atan2 ||
                    found->second == RealFunction::Hypot;
      if (binary) {
        expect(",");
        e.operands.push_back(std::move(inner));
        inner = realOperand(selfDetermined(expression()));
      }
    } else {
      refuse("the system function " + name);
    }
    expect(")");
    e.operands.push_back(std::move(inner));
    return e;
  }

  // An operand of a real operator: an integer converts by value.
  Expr realOperand(Expr operand) {
    if (operand.isReal)
      return operand;
    Expr e;
    e.op = ExprOp::IntegerToReal;
    e.selfWidth = kMaxWordWidth;
    e.isReal = true;
    e.operands.push_back(selfDetermined(std::move(operand)));
    markWide(e);
    return e;
  }

  // `value` converted for a target of `width` bits that is real or not.
  Expr convertedFor(Expr value, bool targetIsReal, uint32_t width) {
    if (targetIsReal)
      return realOperand(std::move(value));
    if (!value.isReal)
      return value;
    Expr e;
    e.op = ExprOp::RealToInteger;
    e.selfWidth = width;
    e.operands.push_back(std::move(value));
    markWide(e);
    return e;
  }

  Expr call(const std::string& name) {
    auto found = functionIds_.find(name);
    if (found == functionIds_.end())
      refuse("a call of '" + name + "', which is not a function");
    const Function& fn = program_->functions[found->second];
    if (currentFunction_)
      functionBodies_[*currentFunction_].callees.insert(found->second);
    Expr e;
    e.op = ExprOp::Call;
    e.target = found->second;
    e.selfWidth = program_->variables[fn.result].width;
    e.selfSigned = program_->variables[fn.result].isSigned;
    e.isReal = program_->variables[fn.result].isReal;
    expect("(");
    for (size_t k = 0; k < fn.inputs.size(); ++k) {
      if (k) expect(",");
      Expr argument = expression();
      const Variable& input = program_->variables[fn.inputs[k]];
      if (input.isReal || argument.isReal)
        argument = convertedFor(selfDetermined(std::move(argument)), input.isReal, input.width);
      applyContext(argument, std::max(input.width, argument.selfWidth), argument.selfSigned, peek().line);
      e.operands.push_back(std::move(argument));
    }
    expect(")");
    return e;
  }

  Expr concatenation() {
    Expr first = expression();
    if (acceptWord("{")) {
      // Replication {n{...}}: `first` is the count.
      if (first.op != ExprOp::Constant)
        refuse("a replication with a variable count");
      Expr inner = concatenation();
      expect("}");
      uint64_t count = first.value & maskOf(first.selfWidth);
      if (count == 0 || count > kMaxWideWidth || count * inner.selfWidth > kMaxWideWidth)
        refuse("a replication wider than " + std::to_string(kMaxWideWidth) + " bits or of zero copies");
      Expr e;
      e.op = ExprOp::Replicate;
      e.value = count;
      e.selfWidth = static_cast<uint32_t>(count * inner.selfWidth);
      e.operands.push_back(std::move(inner));
      return e;
    }
    Expr e;
    e.op = ExprOp::Concat;
    e.operands.push_back(selfDetermined(std::move(first)));
    while (acceptWord(",")) e.operands.push_back(selfDetermined(expression()));
    expect("}");
    for (const Expr& operand : e.operands)
      if (operand.isReal)
        refuse("a real in a concatenation");
    uint64_t width = 0;
    for (const Expr& operand : e.operands) width += operand.selfWidth;
    if (width > kMaxWideWidth)
      refuse("a concatenation wider than " + std::to_string(kMaxWideWidth) + " bits");
    e.selfWidth = static_cast<uint32_t>(width);
    return e;
  }

  // [size]'[s]base digits, or a plain decimal (32-bit signed).
  Expr number(const Token& token) {
    std::string_view text = token.text;
    Expr e;
    size_t quote = text.find('\'');
    if (quote == std::string_view::npos) {
      uint64_t value = 0;
      for (char c : text) {
        if (value > (~uint64_t(0) - 9) / 10)
          refuse("a number wider than 64 bits");
        value = value * 10 + static_cast<uint64_t>(c - '0');
      }
      e.value = value;
      e.selfWidth = value >> 31 ? 64 : 32;
      e.selfSigned = true;
      return e;
    }
    uint64_t size = 32;
    if (quote > 0) {
      size = 0;
      for (char c : text.substr(0, quote)) {
        size = size * 10 + static_cast<uint64_t>(c - '0');
        if (size > kMaxWideWidth)
          refuse("a constant wider than " + std::to_string(kMaxWideWidth) + " bits");
      }
      if (size == 0)
        refuse("a zero-width constant");
    }
    size_t pos = quote + 1;
    if (pos < text.size() && (text[pos] == 's' || text[pos] == 'S')) {
      e.selfSigned = true;
      ++pos;
    }
    if (pos >= text.size())
      refuse("a malformed number");
    char base = static_cast<char>(std::tolower(static_cast<unsigned char>(text[pos++])));
    unsigned bitsPerDigit = base == 'b' ? 1 : base == 'o' ? 3 : base == 'h' ? 4 : 0;
    if (base != 'd' && !bitsPerDigit)
      refuse("a malformed number");
    if (size > kMaxWordWidth)
      return wideNumber(text.substr(pos), static_cast<uint32_t>(size), bitsPerDigit, e);
    uint64_t value = 0, wildcard = 0, highImpedance = 0;
    bool digits = false;
    for (char c : text.substr(pos)) {
      if (c == '_')
        continue;
      digits = true;
      char lower = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      bool isX = lower == 'x', isZ = lower == 'z' || lower == '?';
      if (base == 'd') {
        if (isX || isZ || !std::isdigit(static_cast<unsigned char>(c)) || value > (~uint64_t(0) - 9) / 10)
          refuse("a malformed or oversized decimal constant");
        value = value * 10 + static_cast<uint64_t>(c - '0');
        continue;
      }
      unsigned digit = 0;
      if (!isX && !isZ) {
        if (!std::isxdigit(static_cast<unsigned char>(c)))
          refuse("a malformed number");
        digit = static_cast<unsigned>(std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : lower - 'a' + 10);
        if (digit >> bitsPerDigit)
          refuse("a digit out of its base");
      }
      uint64_t digitMask = (uint64_t(1) << bitsPerDigit) - 1;
      value = (value << bitsPerDigit) | digit;
      wildcard = (wildcard << bitsPerDigit) | (isX || isZ ? digitMask : 0);
      highImpedance = (highImpedance << bitsPerDigit) | (isZ ? digitMask : 0);
    }
    if (!digits)
      refuse("a number without digits");
    e.selfWidth = static_cast<uint32_t>(size);
    e.value = value & maskOf(e.selfWidth);
    e.wildcard = wildcard & maskOf(e.selfWidth);
    e.highImpedance = highImpedance & maskOf(e.selfWidth);
    return e;
  }

  // The digits of a constant wider than a word, into e.wideValue, and its
  // x, z and ? digits into the wildcard words casex and casez labels use;
  // digits past `size` are dropped, as Verilog truncates.
  Expr wideNumber(std::string_view digitsText, uint32_t size, unsigned bitsPerDigit, Expr& e) {
    size_t words = wordsFor(size);
    Words value(words, 0), wildcard(words, 0), highImpedance(words, 0);
    unsigned radix = bitsPerDigit ? 1u << bitsPerDigit : 10;
    // word array = word array * radix + digit.
    auto shiftIn = [radix](Words& target, unsigned digit) {
      unsigned __int128 carry = digit;
      for (uint64_t& word : target) {
        carry += static_cast<unsigned __int128>(word) * radix;
        word = static_cast<uint64_t>(carry);
        carry >>= 64;
      }
    };
    bool digits = false;
    for (char c : digitsText) {
      if (c == '_')
        continue;
      digits = true;
      char lower = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      bool isX = lower == 'x', isZ = lower == 'z' || lower == '?';
      if ((isX || isZ) && !bitsPerDigit)
        refuse("a malformed or oversized decimal constant");
      unsigned digit = 0;
      if (!isX && !isZ) {
        if (!std::isxdigit(static_cast<unsigned char>(c)))
          refuse("a malformed number");
        digit = static_cast<unsigned>(std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : lower - 'a' + 10);
        if (digit >= radix)
          refuse("a digit out of its base");
      }
      shiftIn(value, digit);
      shiftIn(wildcard, isX || isZ ? radix - 1 : 0);
      shiftIn(highImpedance, isZ ? radix - 1 : 0);
    }
    if (!digits)
      refuse("a number without digits");
    maskToWidth(value, size);
    maskToWidth(wildcard, size);
    maskToWidth(highImpedance, size);
    e.selfWidth = size;
    e.value = value[0];
    e.wideValue = std::move(value);
    if (!isZeroWords(wildcard)) {
      e.wildcard = wildcard[0];
      e.highImpedance = highImpedance[0];
      e.wideWildcard = std::move(wildcard);
      e.wideHighImpedance = std::move(highImpedance);
    }
    e.wide = true;
    return e;
  }

  // Functions have static storage, so a recursive one cannot run (nor can
  // Verilator build it): refused, as a cycle in the call graph.
  void refuseRecursion() const {
    std::vector<int> mark(functionBodies_.size(), 0);  // 0 new, 1 on the path, 2 done
    std::vector<std::pair<size_t, std::set<uint32_t>::const_iterator>> stack;
    for (size_t root = 0; root < functionBodies_.size(); ++root) {
      if (mark[root])
        continue;
      mark[root] = 1;
      stack.push_back({root, functionBodies_[root].callees.begin()});
      while (!stack.empty()) {
        auto& [caller, nextCallee] = stack.back();
        if (nextCallee == functionBodies_[caller].callees.end()) {
          mark[caller] = 2;
          stack.pop_back();
          continue;
        }
        uint32_t callee = *nextCallee++;
        if (mark[callee] == 1)
          throw Refusal{"recursive function '" + program_->functions[callee].name + "'"};
        if (!mark[callee]) {
          mark[callee] = 1;
          stack.push_back({callee, functionBodies_[callee].callees.begin()});
        }
      }
    }
  }

  // Levelization.
  void collectReads(const Expr& e, std::set<uint32_t>& reads) const {
    if (e.op == ExprOp::Variable || e.op == ExprOp::Element || e.op == ExprOp::Select)
      reads.insert(e.target);
    if (e.op == ExprOp::Call)
      collectReads(program_->functions[e.target].body, reads);
    for (const Expr& operand : e.operands) collectReads(operand, reads);
  }

  void collectReads(const Stmt& st, std::set<uint32_t>& reads) const {
    collectReads(st.expr, reads);
    for (const LValue& target : st.targets)
      for (const Expr& index : target.index) collectReads(index, reads);
    for (const Stmt& child : st.children) collectReads(child, reads);
    for (const CaseItem& item : st.items)
      for (const Expr& label : item.labels) collectReads(label, reads);
  }

  static void collectWrites(const Stmt& st, std::set<uint32_t>& writes) {
    for (const LValue& target : st.targets) writes.insert(target.variable);
    for (const Stmt& child : st.children) collectWrites(child, writes);
  }

  void addCombinational(CombinationalNode node) {
    collectReads(node.stmt, node.reads);
    collectWrites(node.stmt, node.writes);
    if (node.writes.count(program_->saRdata)) {
      program_->stateRead.push_back(std::move(node.stmt));
      return;
    }
    combinational_.push_back(std::move(node));
  }

  // Kahn's algorithm over "writes a variable the other reads"; whatever a
  // cycle leaves over follows in text order and makes settling iterate.
  void levelize() {
    std::unordered_map<uint32_t, std::vector<size_t>> writers;
    for (size_t k = 0; k < combinational_.size(); ++k)
      for (uint32_t variable : combinational_[k].writes) writers[variable].push_back(k);
    std::vector<std::vector<size_t>> successors(combinational_.size());
    std::vector<size_t> pending(combinational_.size(), 0);
    for (size_t k = 0; k < combinational_.size(); ++k) {
      std::set<size_t> predecessors;
      for (uint32_t variable : combinational_[k].reads)
        if (auto found = writers.find(variable); found != writers.end())
          for (size_t writer : found->second)
            if (writer != k) predecessors.insert(writer);
      for (size_t writer : predecessors) successors[writer].push_back(k);
      pending[k] = predecessors.size();
    }
    std::vector<size_t> ready;
    for (size_t k = combinational_.size(); k-- > 0;)
      if (!pending[k]) ready.push_back(k);
    std::vector<bool> placed(combinational_.size(), false);
    while (!ready.empty()) {
      size_t k = ready.back();
      ready.pop_back();
      placed[k] = true;
      order_.push_back(k);
      for (size_t successor : successors[k])
        if (--pending[successor] == 0) ready.push_back(successor);
    }
    for (size_t k = 0; k < combinational_.size(); ++k)
      if (!placed[k]) {
        order_.push_back(k);
        program_->combinationalCycle = true;
      }
  }

  std::vector<Token> tokens_;
  size_t pos_ = 0;
  unsigned depth_ = 0;
  std::shared_ptr<Program> program_ = std::make_shared<Program>();
  std::map<std::string, uint32_t> globals_;
  std::map<std::string, uint32_t>* localScope_ = nullptr;
  std::map<std::string, uint32_t> functionIds_;
  std::vector<CombinationalNode> combinational_;
  std::vector<size_t> order_;
  std::vector<size_t> processes_;
  struct FunctionBody {
    size_t start;                           // token position of the body
    std::map<std::string, uint32_t> scope;  // its inputs and locals
    std::set<uint32_t> callees;
  };
  std::vector<FunctionBody> functionBodies_;  // parallel to Program::functions
  std::optional<size_t> currentFunction_;  // token positions of assigns, initial and always blocks
  bool clockedSeen_ = false;
};

}  // namespace

std::shared_ptr<const Program> compileSoftwareProgram(std::string_view verilog, std::string& refusal) {
  try {
    return Parser(verilog).run();
  } catch (const Refusal& r) {
    refusal = r.message;
    return nullptr;
  }
}

}  // namespace synergy::engine::software
