// MODE: pthread
//===- pthread_stdatomic.c - C11 atomics between POSIX threads ------------===//
//
// Structures built only from <stdatomic.h>: a Treiber stack that all
// threads push onto with compare-exchange (walked and checked after the
// joins), a test-and-test-and-set spinlock guarding plain data, fetch
// operations of every kind on 8-, 32- and 64-bit atomics, and a
// sequentially consistent handshake between two threads. (Not a ticket
// lock: with more threads than cores its strict hand-over order makes
// every acquisition wait for a context switch, natively as well.)
//
//===----------------------------------------------------------------------===//
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

enum { THREADS = 6, PUSHES = 3000 };

typedef struct Node {
  int value;
  struct Node *next;
} Node;

static Node nodes[THREADS * PUSHES];
static _Atomic(Node *) top;
static atomic_uint tickets;
static atomic_int spinlock;
static long long spin_guarded;
static int spin_guarded_count;
static atomic_uchar small_counter;
static atomic_int bits_or, bits_and = -1, bits_xor;
static atomic_ullong big;

static void *hammer(void *argument) {
  const int id = (int)(intptr_t)argument;
  for (int i = 0; i < PUSHES; ++i) {
    Node *node = &nodes[id * PUSHES + i];
    node->value = id * PUSHES + i;
    Node *old = atomic_load(&top);
    do
      node->next = old;
    while (!atomic_compare_exchange_weak(&top, &old, node));

    atomic_fetch_add(&tickets, 1);
    while (atomic_exchange_explicit(&spinlock, 1, memory_order_acquire)) {
      while (atomic_load_explicit(&spinlock, memory_order_relaxed)) {
      }
    }
    spin_guarded += i;
    spin_guarded_count += 1;
    atomic_store_explicit(&spinlock, 0, memory_order_release);

    atomic_fetch_add(&small_counter, 1);
    atomic_fetch_or(&bits_or, 1 << ((id * 5 + i) % 31));
    atomic_fetch_and(&bits_and, ~(1 << ((id + i) % 29)));
    atomic_fetch_xor(&bits_xor, id * 65599 + i);
    atomic_fetch_add(&big, 0x100000001ull);
  }
  return NULL;
}

static atomic_int flag_a, flag_b;
static int both_missed;

static void *handshake_a(void *argument) {
  (void)argument;
  atomic_store(&flag_a, 1);
  return (void *)(intptr_t)atomic_load(&flag_b);
}

static void *handshake_b(void *argument) {
  (void)argument;
  atomic_store(&flag_b, 1);
  return (void *)(intptr_t)atomic_load(&flag_a);
}

int main(void) {
  pthread_t threads[THREADS];
  for (int t = 0; t < THREADS; ++t)
    pthread_create(&threads[t], NULL, hammer, (void *)(intptr_t)t);
  for (int t = 0; t < THREADS; ++t)
    pthread_join(threads[t], NULL);

  static unsigned char seen[THREADS * PUSHES];
  int length = 0, duplicates = 0;
  for (Node *n = atomic_load(&top); n; n = n->next) {
    length += 1;
    duplicates += seen[n->value]++ != 0;
  }
  printf("stack length %d duplicates %d\n", length, duplicates);
  printf("spinlock guarded %lld count %d, tickets %u\n", spin_guarded, spin_guarded_count,
         atomic_load(&tickets));
  printf("u8 %u or %08x and %08x xor %08x u64 %016llx\n", (unsigned)atomic_load(&small_counter),
         (unsigned)atomic_load(&bits_or), (unsigned)atomic_load(&bits_and),
         (unsigned)atomic_load(&bits_xor), (unsigned long long)atomic_load(&big));

  // Store-then-load on both sides under seq_cst: at least one sees the other.
  for (int round = 0; round < 200; ++round) {
    atomic_store(&flag_a, 0);
    atomic_store(&flag_b, 0);
    pthread_t a, b;
    void *saw_b, *saw_a;
    pthread_create(&a, NULL, handshake_a, NULL);
    pthread_create(&b, NULL, handshake_b, NULL);
    pthread_join(a, &saw_b);
    pthread_join(b, &saw_a);
    both_missed += !saw_a && !saw_b;
  }
  printf("seq_cst handshakes where both missed %d\n", both_missed);
  return 0;
}
