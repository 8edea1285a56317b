//===- ReadmemFile.cpp - The words of a $readmemh/$readmemb file ----------===//
//
// Addresses (the @ records and the start/finish arguments) are Verilog
// indices; the caller maps them to elements. With no start argument the
// load begins at the memory's lowest index, as vvp does (IEEE 1364-2005).
//
//===----------------------------------------------------------------------===//
#include "hwlower/ReadmemFile.h"

#include <cctype>

namespace synergy::hwlower {

static bool isSpace(char c) { return std::isspace(static_cast<unsigned char>(c)); }

ReadmemLoad parseReadmem(const std::string& text, int64_t first, int64_t last, int64_t lowest, int64_t highest,
                         const std::function<int64_t(const std::string&)>& parseAddress) {
  ReadmemLoad load;
  load.first = first;
  int64_t address = first;
  for (size_t i = 0; i < text.size();) {
    if (isSpace(text[i])) {
      ++i;
    } else if (text.compare(i, 2, "//") == 0) {
      i = text.find('\n', i);
      if (i == std::string::npos) break;
    } else if (text.compare(i, 2, "/*") == 0) {
      i = text.find("*/", i + 2);
      if (i == std::string::npos) break;
      i += 2;
    } else {
      size_t end = i;
      while (end < text.size() && !isSpace(text[end]) && text.compare(end, 2, "//") != 0 &&
             text.compare(end, 2, "/*") != 0)
        ++end;
      std::string word = text.substr(i, end - i);
      i = end;
      if (word[0] == '@') {
        address = parseAddress(word.substr(1));
        load.sawAddress = true;
        continue;
      }
      if (address > last || address < lowest || address > highest) {
        load.stoppedEarly = true;
        break;
      }
      load.words.push_back({address, std::move(word)});
      ++address;
    }
  }
  load.next = address;
  return load;
}

}  // namespace synergy::hwlower
