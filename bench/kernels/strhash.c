/*===- strhash.c - build and probe a hash table of generated strings -------===*
 *
 * Generates variable-length key strings into one arena, inserts them into an
 * open-addressing (linear probing) hash table that counts duplicates, then
 * probes it with a mix of present and absent keys. This is the pointer- and
 * byte-heavy workload of the suite: unaligned word loads for hashing, byte
 * compares, and cache-missing probes into a table far larger than L2.
 * Hashing and comparison are written here rather than taken from libc so
 * both targets run the same code instead of two C libraries' memcmp.
 *
 * Usage: strhash [keys]   (default 700000 keys, 4 probes per key)
 *
 *===----------------------------------------------------------------------===*/
#include "kernel_support.h"

enum { PROBES_PER_KEY = 4, MIN_KEY_LENGTH = 6, MAX_KEY_LENGTH = 28 };

/* One generated string: an offset into the arena plus its length. */
typedef struct {
  uint32_t offset;
  uint32_t length;
} KeyRef;

/* An empty slot has count == 0. */
typedef struct {
  uint64_t hash;
  KeyRef key;
  uint32_t first_index; /* index of the first insertion of this key */
  uint32_t count;       /* how many times the key was inserted */
} Slot;

typedef struct {
  Slot *slots;
  uint64_t mask;
  const char *arena;
} HashTable;

static inline uint64_t load_word(const char *p) {
  uint64_t word;
  memcpy(&word, p, sizeof word);
  return word;
}

static uint64_t hash_key(const char *p, uint32_t length) {
  uint64_t h = 0x243f6a8885a308d3ull ^ length;
  uint32_t i = 0;
  for (; i + 8 <= length; i += 8) {
    h ^= load_word(p + i);
    h *= 0x9fb21c651e98df25ull;
    h ^= h >> 29;
  }
  for (; i < length; ++i) {
    h ^= (unsigned char)p[i];
    h *= 0x100000001b3ull;
  }
  h ^= h >> 32;
  h *= 0xd6e8feb86659fd93ull;
  return h ^ (h >> 32);
}

static inline int keys_equal(const char *a, const char *b, uint32_t length) {
  for (uint32_t i = 0; i < length; ++i)
    if (a[i] != b[i])
      return 0;
  return 1;
}

static Slot *find_slot(const HashTable *table, const char *key, uint32_t length, uint64_t hash) {
  uint64_t index = hash & table->mask;
  for (;;) {
    Slot *slot = &table->slots[index];
    if (slot->count == 0)
      return slot;
    if (slot->hash == hash && slot->key.length == length &&
        keys_equal(table->arena + slot->key.offset, key, length))
      return slot;
    index = (index + 1) & table->mask;
  }
}

static void insert(HashTable *table, KeyRef key, uint32_t index) {
  const char *text = table->arena + key.offset;
  const uint64_t hash = hash_key(text, key.length);
  Slot *slot = find_slot(table, text, key.length, hash);
  if (slot->count == 0) {
    slot->hash = hash;
    slot->key = key;
    slot->first_index = index;
  }
  ++slot->count;
}

static const Slot *lookup(const HashTable *table, KeyRef key) {
  const char *text = table->arena + key.offset;
  const Slot *slot = find_slot(table, text, key.length, hash_key(text, key.length));
  return slot->count ? slot : NULL;
}

/* Writes "k:" plus random lowercase letters and digits. The alphabet is kept
 * small on purpose so some keys repeat and duplicates are exercised. */
static KeyRef generate_key(char *arena, uint32_t *arena_used, KernelRng *rng) {
  static const char alphabet[] = "abcdefghijklmnop0123";
  const uint32_t length = MIN_KEY_LENGTH + kernel_rng_below(rng, MAX_KEY_LENGTH - MIN_KEY_LENGTH + 1);
  KeyRef key = {*arena_used, length};
  char *out = arena + key.offset;
  out[0] = 'k';
  out[1] = ':';
  for (uint32_t i = 2; i < length; ++i)
    out[i] = alphabet[kernel_rng_below(rng, sizeof alphabet - 1)];
  *arena_used += length;
  return key;
}

int main(int argc, char **argv) {
  const long key_count = kernel_size_arg(argc, argv, 700000);
  const long probe_count = key_count * PROBES_PER_KEY;
  /* Half the probes are fresh strings, so the arena holds keys plus those. */
  const size_t arena_size = (size_t)(key_count + probe_count / 2 + 1) * MAX_KEY_LENGTH;
  char *arena = kernel_alloc(arena_size);
  KeyRef *keys = kernel_alloc((size_t)key_count * sizeof(KeyRef));
  KeyRef *probes = kernel_alloc((size_t)probe_count * sizeof(KeyRef));
  uint32_t arena_used = 0;

  KernelRng rng = {1234567};
  for (long i = 0; i < key_count; ++i)
    keys[i] = generate_key(arena, &arena_used, &rng);
  for (long i = 0; i < probe_count; ++i)
    probes[i] = (i & 1) ? generate_key(arena, &arena_used, &rng)
                        : keys[kernel_rng_below(&rng, (uint32_t)key_count)];

  uint64_t capacity = 16;
  while (capacity < (uint64_t)key_count * 2)
    capacity *= 2;
  HashTable table = {kernel_alloc(capacity * sizeof(Slot)), capacity - 1, arena};
  memset(table.slots, 0, capacity * sizeof(Slot));

  KernelTimer timer = kernel_timer_start();
  for (long i = 0; i < key_count; ++i)
    insert(&table, keys[i], (uint32_t)i);
  uint64_t hits = 0, found_index_sum = 0, found_count_sum = 0;
  for (long i = 0; i < probe_count; ++i) {
    const Slot *slot = lookup(&table, probes[i]);
    if (slot) {
      ++hits;
      found_index_sum += slot->first_index;
      found_count_sum += slot->count;
    }
  }
  kernel_round_end(&timer, 1);

  uint64_t distinct = 0;
  KernelChecksum sum;
  kernel_checksum_init(&sum);
  for (uint64_t i = 0; i < capacity; ++i) {
    const Slot *slot = &table.slots[i];
    if (slot->count == 0)
      continue;
    ++distinct;
    kernel_checksum_u64(&sum, i);
    kernel_checksum_u64(&sum, slot->hash);
    kernel_checksum_u64(&sum, ((uint64_t)slot->first_index << 32) | slot->count);
  }
  kernel_checksum_u64(&sum, hits);
  kernel_checksum_u64(&sum, found_index_sum);
  kernel_checksum_u64(&sum, found_count_sum);
  printf("kernel strhash keys=%ld probes=%ld distinct=%" PRIu64 " hits=%" PRIu64 "\n", key_count,
         probe_count, distinct, hits);
  kernel_report(&sum, &timer);
  free(arena);
  free(keys);
  free(probes);
  free(table.slots);
  return 0;
}
