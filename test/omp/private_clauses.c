// MODE: openmp
//===- private_clauses.c - private, firstprivate, lastprivate, default ----===//
//
// firstprivate copies scalars, arrays and structs into each thread and
// changes to the copies never leak back; private copies start apart from
// the original, which keeps its value; lastprivate returns the value of the
// sequentially last iteration under every schedule, including collapsed
// loops and a variable that is both first- and lastprivate.
//
//===----------------------------------------------------------------------===//
#include <omp.h>
#include <stdio.h>

typedef struct {
  int id;
  double weight;
  char tag[8];
} Record;

int main(void) {
  int scalar = 17;
  int array[5] = {1, 2, 3, 4, 5};
  Record record = {7, 2.5, "abc"};
  int wrong_copies = 0;

#pragma omp parallel firstprivate(scalar, array, record) reduction(+ : wrong_copies)
  {
    wrong_copies += scalar != 17 || array[4] != 5 || record.id != 7 || record.weight != 2.5 ||
                    record.tag[2] != 'c';
    scalar += omp_get_thread_num() + 1;
    array[4] = -1;
    record.id = -1;
  }
  printf("firstprivate wrong copies %d, originals %d %d %d\n", wrong_copies, scalar, array[4],
         record.id);

  int scratch = 99;
#pragma omp parallel private(scratch)
  {
    scratch = omp_get_thread_num();
    (void)scratch;
  }
  printf("private leaves original %d\n", scratch);

  int last = -1;
#pragma omp parallel for lastprivate(last) schedule(static)
  for (int i = 0; i < 1001; ++i)
    last = i * 2;
  printf("lastprivate static %d\n", last);

#pragma omp parallel for lastprivate(last) schedule(dynamic, 7)
  for (int i = 0; i < 1000; i += 3)
    last = i;
  printf("lastprivate dynamic,7 %d\n", last);

  long long wide_last = 0;
#pragma omp parallel for lastprivate(wide_last) schedule(guided)
  for (long long i = 10000000000ll; i > 0; i -= 999999999ll)
    wide_last = i;
  printf("lastprivate guided descending %lld\n", wide_last);

  int row = -1, col = -1;
#pragma omp parallel for collapse(2) lastprivate(row, col)
  for (int i = 0; i < 7; ++i)
    for (int j = 0; j < 9; ++j) {
      row = i;
      col = j;
    }
  printf("lastprivate collapsed %d %d\n", row, col);

  int carried = 1000, first_seen_wrong = 0;
#pragma omp parallel for firstprivate(carried) lastprivate(carried) \
    reduction(+ : first_seen_wrong) schedule(static, 4)
  for (int i = 0; i < 101; ++i) {
    if (i % 4 == 0)
      first_seen_wrong += carried < 1000;
    carried += i;
  }
  printf("first+lastprivate %d wrong starts %d\n", carried, first_seen_wrong);

  int shared_total = 0;
  const int bound = 500;
#pragma omp parallel for default(none) shared(shared_total) firstprivate(bound)
  for (int i = 0; i < bound; ++i) {
#pragma omp atomic
    shared_total += i % 3;
  }
  printf("default(none) total %d\n", shared_total);

  // A firstprivate pointer is a private copy of the address: the pointee stays shared.
  int target[64] = {0};
  int *cursor = target;
#pragma omp parallel firstprivate(cursor)
  {
    const int me = omp_get_thread_num();
    if (me < 64) {
      cursor += me;
      *cursor = me + 1;
    }
  }
  int marked = 0;
  for (int k = 0; k < 64; ++k)
    marked += target[k] == k + 1;
  printf("through firstprivate pointer %d\n", marked);
  return 0;
}
