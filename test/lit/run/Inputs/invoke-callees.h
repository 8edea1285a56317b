// Declarations shared by cxx-direct-invokes.cpp and invoke-callees.cpp.
#pragma once

int addOne(int x);
int failIfNegative(int x);
using Callback = int (*)(int);
Callback pickCallback(int which);

struct Shape {
  virtual int area() const = 0;
  virtual ~Shape();
};
Shape* makeShape(int kind);

// Throws its id from the destructor when the id is negative.
struct Loud {
  int id;
  ~Loud() noexcept(false);
};
