// Differential: members compiled into Debian's no-exception libc++.a
// (std::string's, std::stoi and its kin) throw their <stdexcept> exception
// in a granule, as natively, instead of aborting with "... was thrown in
// -fno-exceptions mode" (guestlib/CxxExceptions.cpp replaces
// __libcpp_verbose_abort). The native peer uses libstdc++, whose what()
// texts differ, so the differential part prints the types caught; the
// granule's texts are libc++'s.
// RUN: %host-clang++ -O2 %s -o %t.native && %t.native > %t.expected
// RUN: %synergy-c++ -O2 %s -o %t.wasm
// RUN: %synergy-run %t.wasm > %t.actual
// RUN: diff %t.expected %t.actual
// RUN: FileCheck %s < %t.actual
// RUN: %synergy-run %t.wasm texts | FileCheck %s --check-prefix=TEXTS
// CHECK:      string::at: std::out_of_range
// CHECK-NEXT: string::substr: std::out_of_range
// CHECK-NEXT: string::insert: std::out_of_range
// CHECK-NEXT: stoi("zz"): std::invalid_argument
// CHECK-NEXT: stoi("99999999999"): std::out_of_range
// CHECK-NEXT: stoul("-"): std::invalid_argument
// CHECK-NEXT: stod("x"): std::invalid_argument
// CHECK-NEXT: string(npos, 'x'): std::length_error
// CHECK-NEXT: strings alive afterwards: 3
// TEXTS: basic_string
// TEXTS: stoi: no conversion
// TEXTS: stoi: out of range
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>

static bool printTexts;

template <typename Body>
static void attempt(const char* label, Body body) {
  try {
    body();
    std::printf("%s: no exception\n", label);
  } catch (const std::out_of_range& e) {
    std::printf("%s: std::out_of_range\n", label);
    if (printTexts) std::printf("  %s\n", e.what());
  } catch (const std::invalid_argument& e) {
    std::printf("%s: std::invalid_argument\n", label);
    if (printTexts) std::printf("  %s\n", e.what());
  } catch (const std::length_error& e) {
    std::printf("%s: std::length_error\n", label);
    if (printTexts) std::printf("  %s\n", e.what());
  }
}

int main(int argc, char** argv) {
  printTexts = argc == 2 && !std::strcmp(argv[1], "texts");
  std::string text = "abc";
  std::string copy = text + "def";
  size_t far = text.size() + static_cast<size_t>(argc) + 4;
  attempt("string::at", [&] { std::printf("%c\n", text.at(far)); });
  attempt("string::substr", [&] { std::printf("%s\n", text.substr(far).c_str()); });
  attempt("string::insert", [&] { copy.insert(far, "x"); });
  attempt("stoi(\"zz\")", [] { std::printf("%d\n", std::stoi("zz")); });
  attempt("stoi(\"99999999999\")", [] { std::printf("%d\n", std::stoi("99999999999")); });
  attempt("stoul(\"-\")", [] { std::printf("%lu\n", std::stoul("-")); });
  attempt("stod(\"x\")", [] { std::printf("%f\n", std::stod("x")); });
  attempt("string(npos, 'x')", [] {
    std::string huge(std::string::npos, 'x');
    std::printf("%zu\n", huge.size());
  });
  std::string third = copy + text;
  std::printf("strings alive afterwards: %d\n",
              int(!text.empty()) + int(!copy.empty()) + int(!third.empty()));
  return 0;
}
