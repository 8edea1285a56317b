// MODE: pthread
//===- pthread_prodcons.c - bounded buffer on a mutex and two conditions --===//
//
// Three producers and three consumers share an eight-slot ring buffer;
// producers wait on not_full, consumers on not_empty. Every item carries
// its producer and sequence number: each item must be consumed exactly
// once, and each consumer must see any one producer's items in increasing
// order (the buffer is FIFO). A poison item per consumer ends the run.
//
//===----------------------------------------------------------------------===//
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

enum { PRODUCERS = 3, CONSUMERS = 3, ITEMS_EACH = 20000, SLOTS = 8 };

typedef struct {
  int producer;
  int sequence;
} Item;

static Item ring[SLOTS];
static int head, tail, occupied;
static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER;
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER;

static unsigned char consumed[PRODUCERS][ITEMS_EACH];

typedef struct {
  int id;
  long long sum;
  int count;
  int out_of_order;
} Consumer;

static void put(Item item) {
  pthread_mutex_lock(&mutex);
  while (occupied == SLOTS)
    pthread_cond_wait(&not_full, &mutex);
  ring[tail] = item;
  tail = (tail + 1) % SLOTS;
  occupied += 1;
  pthread_cond_signal(&not_empty);
  pthread_mutex_unlock(&mutex);
}

static Item take(void) {
  pthread_mutex_lock(&mutex);
  while (occupied == 0)
    pthread_cond_wait(&not_empty, &mutex);
  Item item = ring[head];
  head = (head + 1) % SLOTS;
  occupied -= 1;
  pthread_cond_signal(&not_full);
  pthread_mutex_unlock(&mutex);
  return item;
}

static void *produce(void *argument) {
  const int id = *(const int *)argument;
  for (int s = 0; s < ITEMS_EACH; ++s)
    put((Item){id, s});
  return NULL;
}

static void *consume(void *argument) {
  Consumer *self = argument;
  int last[PRODUCERS] = {-1, -1, -1};
  for (;;) {
    Item item = take();
    if (item.producer < 0)
      break;
    if (item.sequence <= last[item.producer])
      self->out_of_order += 1;
    last[item.producer] = item.sequence;
    consumed[item.producer][item.sequence] += 1;
    self->sum += (long long)item.producer * ITEMS_EACH + item.sequence;
    self->count += 1;
  }
  return NULL;
}

int main(void) {
  pthread_t producers[PRODUCERS], consumers[CONSUMERS];
  int producer_ids[PRODUCERS];
  Consumer state[CONSUMERS] = {{0}};
  for (int c = 0; c < CONSUMERS; ++c) {
    state[c].id = c;
    pthread_create(&consumers[c], NULL, consume, &state[c]);
  }
  for (int p = 0; p < PRODUCERS; ++p) {
    producer_ids[p] = p;
    pthread_create(&producers[p], NULL, produce, &producer_ids[p]);
  }
  for (int p = 0; p < PRODUCERS; ++p)
    pthread_join(producers[p], NULL);
  for (int c = 0; c < CONSUMERS; ++c)
    put((Item){-1, -1});
  long long sum = 0;
  int count = 0, out_of_order = 0;
  for (int c = 0; c < CONSUMERS; ++c) {
    pthread_join(consumers[c], NULL);
    sum += state[c].sum;
    count += state[c].count;
    out_of_order += state[c].out_of_order;
  }
  int once = 1;
  for (int p = 0; p < PRODUCERS; ++p)
    for (int s = 0; s < ITEMS_EACH; ++s)
      once &= consumed[p][s] == 1;
  printf("consumed %d items, sum %lld, each exactly once %s, out of order %d\n", count, sum,
         once ? "yes" : "no", out_of_order);
  printf("buffer empty at the end %s\n", occupied == 0 ? "yes" : "no");
  return 0;
}
