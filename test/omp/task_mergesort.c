// MODE: openmp
// Merge sort with tasks: halves are sorted by tasks that any thread may run
// (under --dsm on another replica) and merged after a taskwait, so every
// level reads what tasks on other threads wrote. Deterministic data.
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 40000
#define CUTOFF 500

static void insertionSort(int* a, int n) {
  for (int i = 1; i < n; ++i) {
    int v = a[i], j = i - 1;
    while (j >= 0 && a[j] > v) {
      a[j + 1] = a[j];
      --j;
    }
    a[j + 1] = v;
  }
}

static void mergeSort(int* a, int* scratch, int n) {
  if (n <= CUTOFF) {
    insertionSort(a, n);
    return;
  }
  int half = n / 2;
#pragma omp task firstprivate(a, scratch, half)
  mergeSort(a, scratch, half);
#pragma omp task firstprivate(a, scratch, half, n)
  mergeSort(a + half, scratch + half, n - half);
#pragma omp taskwait
  int i = 0, j = half, k = 0;
  while (i < half && j < n) scratch[k++] = a[i] <= a[j] ? a[i++] : a[j++];
  while (i < half) scratch[k++] = a[i++];
  while (j < n) scratch[k++] = a[j++];
  memcpy(a, scratch, sizeof(int) * (size_t)n);
}

int main(void) {
  int* a = malloc(sizeof(int) * N);
  int* scratch = malloc(sizeof(int) * N);
  unsigned state = 12345;
  long long sum = 0;
  for (int i = 0; i < N; ++i) {
    state = state * 1103515245u + 12345u;
    a[i] = (int)((state >> 8) % 100000);
    sum += a[i];
  }
#pragma omp parallel
#pragma omp single
  mergeSort(a, scratch, N);
  int sorted = 1;
  long long after = 0, weighted = 0;
  for (int i = 0; i < N; ++i) {
    if (i > 0 && a[i - 1] > a[i]) sorted = 0;
    after += a[i];
    weighted += (long long)a[i] * (i % 97);
  }
  printf("sorted %d, sum kept %d, weighted %lld, min %d, median %d, max %d\n", sorted, sum == after,
         weighted, a[0], a[N / 2], a[N - 1]);
  free(a);
  free(scratch);
  return 0;
}
