// Differential: a C++ program using std::vector, std::map and std::string
// (libc++ for wasm32, no exceptions) prints what the native build prints.
// RUN: %host-clang++ -O2 -fno-exceptions %s -o %t.native && %t.native > %t.expected
// RUN: %synergy-c++ -O2 -fno-exceptions %s -o %t.wasm
// RUN: %synergy-run %t.wasm > %t.actual
// RUN: diff %t.expected %t.actual
// RUN: FileCheck %s < %t.actual
// CHECK: words: 9 distinct: 7
// CHECK: the: 3
// CHECK: longest: containers
#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

int main() {
  std::string text = "the quick granule runs the containers in the sandbox";
  std::vector<std::string> words;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    words.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  std::map<std::string, int> counts;
  for (const auto& w : words) ++counts[w];
  std::printf("words: %zu distinct: %zu\n", words.size(), counts.size());
  for (const auto& [word, n] : counts) std::printf("%s: %d\n", word.c_str(), n);
  auto longest = *std::max_element(words.begin(), words.end(), [](auto& a, auto& b) {
    return a.size() < b.size();
  });
  std::printf("longest: %s\n", longest.c_str());

  std::vector<int> numbers;
  for (int i = 0; i < 100000; ++i) numbers.push_back((i * 7919) % 100003);
  std::sort(numbers.begin(), numbers.end());
  long long sum = 0;
  for (int v : numbers) sum += v;
  std::string joined;
  for (int i = 0; i < 5; ++i) joined += std::to_string(numbers[i]) + ",";
  std::printf("sum: %lld first: %s\n", sum, joined.c_str());
  return 0;
}
