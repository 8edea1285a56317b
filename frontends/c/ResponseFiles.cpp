//===- ResponseFiles.cpp - expand @file arguments --------------------------===//
//
// Splits response files into words the way gcc and clang's GNU mode do, so a
// command line means the same whether CMake or Ninja wrapped it in a file.
//
//===----------------------------------------------------------------------===//
#include "frontends/c/ResponseFiles.h"

#include <fstream>
#include <sstream>

namespace synergy::frontend_c {

// A response file that includes itself would otherwise loop forever.
static constexpr int kMaxResponseFileDepth = 16;

static std::vector<std::string> splitGnuWords(const std::string& text) {
  std::vector<std::string> words;
  std::string word;
  bool inWord = false;
  char quote = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\\' && i + 1 < text.size()) {
      word += text[++i];
      inWord = true;
    } else if (quote) {
      if (c == quote)
        quote = 0;
      else
        word += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      inWord = true;
    } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (inWord) words.push_back(word);
      word.clear();
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push_back(word);
  return words;
}

static bool readWholeFile(const std::string& path, std::string& text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream buffer;
  buffer << in.rdbuf();
  text = buffer.str();
  return true;
}

static bool expandAtDepth(const std::vector<std::string>& arguments, int depth,
                          std::vector<std::string>& expanded, std::string& error) {
  for (const std::string& argument : arguments) {
    std::string text;
    if (argument.size() < 2 || argument[0] != '@' || !readWholeFile(argument.substr(1), text)) {
      expanded.push_back(argument);
      continue;
    }
    if (depth == kMaxResponseFileDepth) {
      error = "response file '" + argument.substr(1) + "' nests too deeply";
      return false;
    }
    if (!expandAtDepth(splitGnuWords(text), depth + 1, expanded, error)) return false;
  }
  return true;
}

bool expandResponseFiles(std::vector<std::string>& arguments, std::string& error) {
  std::vector<std::string> expanded;
  if (!expandAtDepth(arguments, 0, expanded, error)) return false;
  arguments = std::move(expanded);
  return true;
}

}  // namespace synergy::frontend_c
