// Differential: a small Lua-like interpreter whose errors and coroutines are
// built on setjmp/longjmp gives the same output as a granule and natively.
//  - errors raised deep in a recursive-descent evaluator unwind to the
//    innermost protected call (nested try(), as Lua's pcall inside pcall);
//  - coroutines yield by a longjmp out of nested evaluation to resume() and
//    are resumed by replaying, with the values sent in so far;
//  - setjmp's return values (longjmp(env, 0) returns 1), several setjmps in
//    one function, a longjmp through a function pointer;
//  - 20000 longjmps out of frames with 4 KiB locals on the shadow stack: the
//    8 MiB stack survives only if every longjmp restores the stack pointer.
// RUN: %host-clang -O2 %s -o %t.native && %t.native > %t.expected
// RUN: %synergy-cc -O2 %s -o %t.wasm
// RUN: %synergy-run %t.wasm > %t.actual
// RUN: diff %t.expected %t.actual
// RUN: FileCheck %s < %t.actual
// CHECK-LABEL: == evaluate
// CHECK: 1+2*3 = 7
// CHECK-NEXT: (1+2)*3 = 9
// CHECK-NEXT: 7/(3-3) -> error: division by zero at column 2
// CHECK-NEXT: 1+(2* -> error: expected a number at column 6
// CHECK-NEXT: try(8/0, 42)+1 = 43
// CHECK-NEXT: try(try(error(5), error(6)), 100+error(7)) -> error: user error 7 at column 41
// CHECK-NEXT: try(((((((((((error(3))))))))))), 11) = 11
// CHECK-NEXT: 2*try(3+try(error(1), 4), 0) = 14
// CHECK-LABEL: == coroutines
// CHECK-NEXT: co1 resume 1 yields 1
// CHECK-NEXT: co1 resume 2 yields 2
// CHECK-NEXT: co1 resume 3 yields 10
// CHECK-NEXT: co1 resume 4 yields 20
// CHECK-NEXT: co1 resume 5 returns 701
// CHECK-NEXT: co1 resume 5 -> error: cannot resume a dead coroutine
// CHECK-NEXT: co2 resume 1 yields 4
// CHECK-NEXT: co2 resume 2 yields 5
// CHECK-NEXT: co2 resume 3 -> error: division by zero at column 14
// CHECK-NEXT: co2 resume 3 -> error: cannot resume a dead coroutine
// CHECK-LABEL: == setjmp values
// CHECK-NEXT: longjmp(env, 0) -> setjmp returned 1
// CHECK-NEXT: longjmp(env, 7) -> setjmp returned 7
// CHECK-NEXT: longjmp(env, -3) -> setjmp returned -3
// CHECK-NEXT: second setjmp in the same function returned 9, first still 0
// CHECK-NEXT: through a function pointer: 12
// CHECK-NEXT: 20000 deep unwinds, checksum 200010000
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum Status { STATUS_OK = 0, STATUS_ERROR = 1, STATUS_YIELD = 2 };

struct Coroutine {
  const char* source;
  int dead;
  int resumes;        // how many times it has been resumed
  int sent[16];       // the value each resume sent in
  int yieldCount;     // yields met while replaying the current resume
  int value;          // the last value yielded or returned
  jmp_buf* resumeJump;
};

struct State {
  jmp_buf* errorJump;
  char message[128];
  const char* source;
  const char* cursor;
  struct Coroutine* running;
};

static void raise(struct State* S, const char* format, ...) {
  va_list args;
  va_start(args, format);
  int n = vsnprintf(S->message, sizeof S->message, format, args);
  va_end(args);
  snprintf(S->message + n, sizeof S->message - n, " at column %d",
           (int)(S->cursor - S->source) + 1);
  longjmp(*S->errorJump, STATUS_ERROR);
}

// Runs body(S, data) with a fresh error target, as luaD_rawrunprotected.
static int protectedCall(struct State* S, void (*body)(struct State*, void*), void* data) {
  jmp_buf target;
  jmp_buf* outer = S->errorJump;
  S->errorJump = &target;
  int status = setjmp(target);
  if (status == STATUS_OK) body(S, data);
  S->errorJump = outer;
  return status;
}

static void skipSpaces(struct State* S) {
  while (*S->cursor == ' ') ++S->cursor;
}

static int accept(struct State* S, const char* word) {
  skipSpaces(S);
  size_t n = strlen(word);
  if (strncmp(S->cursor, word, n) != 0) return 0;
  S->cursor += n;
  return 1;
}

static void expect(struct State* S, const char* word) {
  if (!accept(S, word)) raise(S, "expected '%s'", word);
}

static int expression(struct State* S);

// Moves past one argument without evaluating it.
static void skipArgument(struct State* S) {
  int depth = 0;
  for (; *S->cursor; ++S->cursor) {
    if (*S->cursor == '(') ++depth;
    if (*S->cursor == ')' && depth-- == 0) return;
    if (*S->cursor == ',' && depth == 0) return;
  }
}

struct Evaluation {
  int value;
};

static void evaluateInto(struct State* S, void* data) {
  ((struct Evaluation*)data)->value = expression(S);
}

static int yieldValue(struct State* S, int value) {
  struct Coroutine* co = S->running;
  if (!co) raise(S, "yield outside a coroutine");
  // The yields before this resume's have happened already: each evaluates to
  // the value the resume after it sent in.
  int index = co->yieldCount++;
  if (index < co->resumes - 1) return co->sent[index + 1];
  co->value = value;
  longjmp(*co->resumeJump, STATUS_YIELD);
}

static int factor(struct State* S) {
  skipSpaces(S);
  if (accept(S, "(")) {
    int value = expression(S);
    expect(S, ")");
    return value;
  }
  if (accept(S, "try(")) {
    struct Evaluation attempt;
    const char* start = S->cursor;
    int status = protectedCall(S, evaluateInto, &attempt);
    int value = attempt.value;
    if (status != STATUS_OK) {
      S->cursor = start;
      skipArgument(S);
    }
    expect(S, ",");
    if (status == STATUS_OK) {
      skipArgument(S);
    } else {
      value = expression(S);
    }
    expect(S, ")");
    return value;
  }
  if (accept(S, "error(")) {
    int code = expression(S);
    raise(S, "user error %d", code);
  }
  if (accept(S, "yield(")) {
    int value = expression(S);
    expect(S, ")");
    return yieldValue(S, value);
  }
  if (*S->cursor < '0' || *S->cursor > '9') raise(S, "expected a number");
  int value = 0;
  while (*S->cursor >= '0' && *S->cursor <= '9') value = value * 10 + (*S->cursor++ - '0');
  return value;
}

static int term(struct State* S) {
  int value = factor(S);
  for (;;) {
    if (accept(S, "*")) {
      value *= factor(S);
    } else if (accept(S, "/")) {
      const char* at = S->cursor;
      int divisor = factor(S);
      if (divisor == 0) {
        S->cursor = at - 1;
        raise(S, "division by zero");
      }
      value /= divisor;
    } else {
      return value;
    }
  }
}

static int expression(struct State* S) {
  int value = term(S);
  for (;;) {
    if (accept(S, "+")) value += term(S);
    else if (accept(S, "-")) value -= term(S);
    else return value;
  }
}

static void evaluateWhole(struct State* S, void* data) {
  ((struct Evaluation*)data)->value = expression(S);
  skipSpaces(S);
  if (*S->cursor) raise(S, "unexpected '%c'", *S->cursor);
}

static void show(const char* source) {
  struct State S = {0};
  S.source = S.cursor = source;
  struct Evaluation result;
  if (protectedCall(&S, evaluateWhole, &result) == STATUS_OK)
    printf("%s = %d\n", source, result.value);
  else
    printf("%s -> error: %s\n", source, S.message);
}

// Resumes `co`, sending `sent`: STATUS_YIELD or STATUS_OK (returned) with
// co->value set, or STATUS_ERROR.
static int resume(struct State* S, struct Coroutine* co, int sent) {
  if (co->dead) {
    snprintf(S->message, sizeof S->message, "cannot resume a dead coroutine");
    return STATUS_ERROR;
  }
  jmp_buf target;
  co->sent[co->resumes++] = sent;
  co->yieldCount = 0;
  co->resumeJump = &target;
  S->running = co;
  S->source = S->cursor = co->source;
  struct Evaluation result;
  int status = setjmp(target);
  if (status == STATUS_OK) {
    status = protectedCall(S, evaluateWhole, &result);
    if (status == STATUS_OK) co->value = result.value;
  }
  S->running = NULL;
  if (status != STATUS_YIELD) co->dead = 1;
  return status;
}

// Resumes until an error, which a dead coroutine's resume is.
static void runCoroutine(const char* name, struct Coroutine* co) {
  struct State S = {0};
  for (int sent = 0;; sent += 100) {
    int status = resume(&S, co, sent);
    if (status == STATUS_ERROR) {
      printf("%s resume %d -> error: %s\n", name, co->resumes, S.message);
      return;
    }
    printf("%s resume %d %s %d\n", name, co->resumes,
           status == STATUS_YIELD ? "yields" : "returns", co->value);
  }
}

static jmp_buf valueTarget;

static void jumpWith(int value) { longjmp(valueTarget, value); }

static void checkSetjmpValues(void) {
  static const int values[] = {0, 7, -3};
  for (int i = 0; i < 3; ++i) {
    int got = setjmp(valueTarget);
    if (got == 0) jumpWith(values[i]);
    printf("longjmp(env, %d) -> setjmp returned %d\n", values[i], got);
  }
  jmp_buf first, second;
  volatile int firstResult = setjmp(first);
  int secondResult = setjmp(second);
  if (secondResult == 0) longjmp(second, 9);
  printf("second setjmp in the same function returned %d, first still %d\n", secondResult,
         firstResult);
  void (*volatile jump)(int) = jumpWith;
  int viaPointer = setjmp(valueTarget);
  if (viaPointer == 0) jump(12);
  printf("through a function pointer: %d\n", viaPointer);
}

static jmp_buf loopTarget;

static void descend(int depth, int value) {
  volatile char scratch[4096];
  scratch[depth] = (char)depth;
  if (depth == 0) longjmp(loopTarget, value + scratch[0] + 1);
  descend(depth - 1, value);
  scratch[1] = 0;
}

static void unwindManyTimes(void) {
  volatile long checksum = 0;
  for (volatile int i = 0; i < 20000; ++i) {
    int got = setjmp(loopTarget);
    if (got == 0) descend(3, i);
    checksum += got;
  }
  printf("20000 deep unwinds, checksum %ld\n", (long)checksum);
}

int main(void) {
  printf("== evaluate\n");
  show("1+2*3");
  show("(1+2)*3");
  show("7/(3-3)");
  show("1+(2*");
  show("try(8/0, 42)+1");
  show("try(try(error(5), error(6)), 100+error(7))");
  show("try(((((((((((error(3))))))))))), 11)");
  show("2*try(3+try(error(1), 4), 0)");

  printf("== coroutines\n");
  struct Coroutine co1 = {.source = "yield(1) + yield(2) + try(yield(10) / 0, yield(20)) + 1"};
  runCoroutine("co1", &co1);
  struct Coroutine co2 = {.source = "yield(4) + 4 / (yield(5)-200)"};
  runCoroutine("co2", &co2);
  runCoroutine("co2", &co2);

  printf("== setjmp values\n");
  checkSetjmpValues();
  unwindManyTimes();
  return 0;
}
