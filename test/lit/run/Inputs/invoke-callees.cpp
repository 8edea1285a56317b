// The other translation unit of cxx-direct-invokes.cpp: what its calls
// reach is unknown where they are compiled, so clang makes each an invoke,
// and only the whole-module analysis (passes/DirectInvokes.cpp) can tell
// which of these never throw.
#include "invoke-callees.h"

#include <cstdio>
#include <stdexcept>
#include <string>

int addOne(int x) { return x + 1; }

int failIfNegative(int x) {
  if (x < 0) throw std::invalid_argument("negative " + std::to_string(x));
  return x * 2;
}

Callback pickCallback(int which) { return which == 0 ? addOne : failIfNegative; }

Shape::~Shape() = default;

namespace {
struct Square : Shape {
  int side;
  explicit Square(int s) : side(s) {}
  int area() const override { return side * side; }
};
struct Broken : Shape {
  int area() const override { throw std::runtime_error("broken shape"); }
};
}  // namespace

Shape* makeShape(int kind) { return kind == 0 ? static_cast<Shape*>(new Square(4)) : new Broken(); }

Loud::~Loud() noexcept(false) {
  std::printf("~Loud %d\n", id);
  std::fflush(stdout);  // std::terminate does not flush
  if (id < 0) throw id;
}
