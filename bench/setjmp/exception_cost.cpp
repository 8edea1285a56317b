// Cost of C++ exceptions in granules (issue 18). synergy-c++ lowers a call
// that may throw into a landing pad to an env.invoke_* import that the
// runtime runs under a host jump target, and a throw jumps back to it; the
// native build uses table-driven zero-cost unwinding. Two modes:
//  - `throw N`: N exceptions thrown three frames down, through a frame with
//    a destructor, and caught (the cost of a throw);
//  - `call N`: N calls that could throw, each under a try with a local that
//    has a destructor, and none throws (the cost of exceptions being on in
//    code that never throws); built with -DNO_EXCEPTIONS -fno-exceptions it
//    makes the same calls without any of that;
//  - `containers N`: ordinary C++ that never throws but could (every
//    allocation may throw std::bad_alloc): N rounds of building
//    std::strings and a std::vector of them, counting them in a std::map and
//    looking them up, with a destructor-bearing local in each round;
//  - `virtual N`: N virtual calls through a base pointer next to a local
//    with a destructor, over three classes; none throws, but nothing tells
//    the compiler so (one method of the same type elsewhere does).
// bench/setjmp/run-exceptions.py builds and times each against native.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

static volatile unsigned sink;

struct Tally {
  unsigned* target;
  ~Tally() { *target += 1; }
};

__attribute__((noinline)) static unsigned step(unsigned x) {
#ifndef NO_EXCEPTIONS
  if (x == 0xffffffffu) throw x;  // never: keeps the call a potential thrower
#endif
  return x * 1664525u + 1013904223u;
}

#ifndef NO_EXCEPTIONS
__attribute__((noinline)) static void thrower(int depth, unsigned value) {
  if (depth == 0) throw value;
  unsigned count = 0;
  Tally tally{&count};
  thrower(depth - 1, value + 1);
}

static unsigned throwLoop(long n) {
  unsigned sum = 0;
  for (long i = 0; i < n; ++i) {
    try {
      thrower(3, static_cast<unsigned>(i));
    } catch (unsigned v) {
      sum += v;
    }
  }
  return sum;
}
#endif

static unsigned callLoop(long n) {
  unsigned x = 1, destroyed = 0;
  for (long i = 0; i < n; ++i) {
#ifndef NO_EXCEPTIONS
    try {
#endif
      Tally tally{&destroyed};
      x = step(x);
#ifndef NO_EXCEPTIONS
    } catch (...) {
      return 0;
    }
#endif
  }
  return x + destroyed;
}

__attribute__((noinline)) static unsigned containerLoop(long n) {
  std::map<std::string, unsigned> counts;
  unsigned destroyed = 0, found = 0;
  for (long i = 0; i < n; ++i) {
    Tally tally{&destroyed};
    std::vector<std::string> words;
    for (unsigned k = 0; k < 4; ++k)
      words.push_back("word-" + std::to_string((i * 7 + k) % 64) + "-of-the-benchmark-loop");
    for (const std::string& word : words) ++counts[word];
    found += counts.count(words[static_cast<size_t>(i) % words.size()]);
  }
  return found + destroyed + static_cast<unsigned>(counts.size());
}

struct Shape {
  virtual unsigned measure(unsigned x) const;
  virtual ~Shape() = default;
};
struct Square : Shape {
  unsigned measure(unsigned x) const override { return x * x; }
};
struct Line : Shape {
  unsigned measure(unsigned x) const override { return x + 3; }
};
struct Strict : Shape {
  unsigned measure(unsigned x) const override {
#ifndef NO_EXCEPTIONS
    if (x == 0xffffffffu) throw x;  // never
#endif
    return x ^ 0x5bd1e995u;
  }
};
unsigned Shape::measure(unsigned x) const { return x; }

// A global, so that an exception leaving the loop must still count.
static unsigned virtualTallies;

__attribute__((noinline)) static unsigned virtualLoop(long n) {
  Square square;
  Line line;
  Strict strict;
  const Shape* shapes[] = {&square, &line, &strict};
  unsigned x = 1;
  for (long i = 0; i < n; ++i) {
    Tally tally{&virtualTallies};
    x += shapes[i % 3]->measure(x);
  }
  return x + virtualTallies;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: exception_cost throw|call|containers|virtual N\n");
    return 2;
  }
  long n = std::atol(argv[2]);
  if (!std::strcmp(argv[1], "call")) {
    sink = callLoop(n);
  } else if (!std::strcmp(argv[1], "containers")) {
    sink = containerLoop(n);
  } else if (!std::strcmp(argv[1], "virtual")) {
    sink = virtualLoop(n);
#ifndef NO_EXCEPTIONS
  } else if (!std::strcmp(argv[1], "throw")) {
    sink = throwLoop(n);
#endif
  } else {
    return 2;
  }
  std::printf("%u\n", sink);
  return 0;
}
