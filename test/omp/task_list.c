// MODE: openmp
// Linked-list traversal: one thread walks the list and creates a task per
// node with the node pointer firstprivate; then every thread walks its own
// list the same way. Results are checked after the region.
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

struct node {
  int value;
  long long result;
  struct node* next;
};

static struct node* makeList(int length, int seed) {
  struct node* head = NULL;
  for (int i = length - 1; i >= 0; --i) {
    struct node* n = malloc(sizeof *n);
    n->value = (i * 37 + seed) % 101;
    n->result = -1;
    n->next = head;
    head = n;
  }
  return head;
}

static long long work(int value) {
  long long x = value;
  for (int i = 0; i < 200 + value * 10; ++i) x = (x * 1103515245 + 12345) % 1000003;
  return x;
}

static long long checksum(const struct node* n) {
  long long sum = 0;
  int index = 0;
  for (; n; n = n->next, ++index) sum += (n->result == work(n->value) ? 1 : 1000000) * (index + 1);
  return sum;
}

int main(void) {
  struct node* list = makeList(300, 7);
#pragma omp parallel
  {
#pragma omp single
    {
      for (struct node* p = list; p; p = p->next) {
#pragma omp task firstprivate(p)
        p->result = work(p->value);
      }
    }
  }
  printf("one producer: checksum %lld\n", checksum(list));

  struct node* lists[64];
  int threads = 1;
#pragma omp parallel
  {
    int me = omp_get_thread_num();
#pragma omp single
    threads = omp_get_num_threads();
#pragma omp critical
    lists[me] = makeList(40 + me, me);
    for (struct node* p = lists[me]; p; p = p->next) {
#pragma omp task firstprivate(p)
      p->result = work(p->value);
    }
  }
  long long total = 0;
  for (int t = 0; t < threads; ++t) total += checksum(lists[t]) - (long long)(40 + t) * (41 + t) / 2;
  printf("every thread a producer: excess %lld\n", total);

  // Tasks that create tasks down the list, without any taskwait: the end of
  // the region still waits for all of them.
  struct node* chain = makeList(60, 3);
#pragma omp parallel
#pragma omp single
  {
#pragma omp task firstprivate(chain)
    {
      for (struct node* p = chain; p; p = p->next) {
#pragma omp task firstprivate(p)
        p->result = work(p->value);
      }
    }
  }
  printf("nested producer: checksum %lld\n", checksum(chain));
  return 0;
}
