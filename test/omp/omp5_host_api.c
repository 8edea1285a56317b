// MODE: openmp
//===- omp5_host_api.c - the OpenMP 5.0 host routines ----------------------===//
//
// Device and pause queries, the teams ICVs, the place queries of a run
// without OMP_PLACES, omp_capture_affinity on formats whose fields do not
// depend on the machine (widths, justification, zero padding, long names,
// truncation), a sync hint on critical, and the allocators:
// every predefined one, aligned and zeroed blocks, realloc, a pool whose
// exhaustion goes to each fallback, a changed default allocator, traits
// omp_init_allocator must refuse, and the `allocate` clause.
//
//===----------------------------------------------------------------------===//
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

enum { MAX_THREADS = 16 };

static int aligned_to(const void *p, uintptr_t alignment) {
  return p != NULL && (uintptr_t)p % alignment == 0;
}

static int filled(const unsigned char *p, size_t n, unsigned char value) {
  for (size_t i = 0; i < n; ++i)
    if (p[i] != value) return 0;
  return 1;
}

static void devices_and_icvs(void) {
  printf("supported active levels %d\n", omp_get_supported_active_levels());
  printf("devices %d initial %d device num %d is initial %d\n", omp_get_num_devices(),
         omp_get_initial_device(), omp_get_device_num(), omp_is_initial_device());
  printf("pause soft %d hard all %d\n", omp_pause_resource(omp_pause_soft, omp_get_initial_device()),
         omp_pause_resource_all(omp_pause_hard));
  int inside = 0;
#pragma omp parallel num_threads(2)
#pragma omp single
  inside = omp_pause_resource_all(omp_pause_soft);
  printf("pause in a region %d\n", inside);
  printf("max teams %d teams thread limit %d\n", omp_get_max_teams(), omp_get_teams_thread_limit());
  omp_set_num_teams(3);
  omp_set_teams_thread_limit(5);
  omp_set_num_teams(-1);
  printf("max teams %d teams thread limit %d\n", omp_get_max_teams(), omp_get_teams_thread_limit());
  printf("num teams %d team num %d\n", omp_get_num_teams(), omp_get_team_num());
  printf("places %d place num %d partition places %d procs in place 0 %d\n", omp_get_num_places(),
         omp_get_place_num(), omp_get_partition_num_places(), omp_get_place_num_procs(0));
}

static void affinity(void) {
  char buffer[128];
  size_t length = omp_get_affinity_format(buffer, sizeof buffer);
  printf("default format %zu [%s]\n", length, buffer);
  static char captured[MAX_THREADS][128];
  static size_t lengths[MAX_THREADS];
  int team = 0;
#pragma omp parallel num_threads(3)
  {
    int me = omp_get_thread_num();
    if (me < MAX_THREADS)
      lengths[me] = omp_capture_affinity(captured[me], sizeof captured[me],
                                         "n=%0.3n|N=%.4N|L=%5L|a=%a|%{thread_num}/%{num_threads}"
                                         "|t%tT%T|%%");
#pragma omp single
    team = omp_get_num_threads();
  }
  for (int t = 0; t < team && t < MAX_THREADS; ++t)
    printf("thread %d: %zu [%s]\n", t, lengths[t], captured[t]);
  length = omp_capture_affinity(buffer, 5, "abcdefgh");
  printf("truncated %zu [%s]\n", length, buffer);
  omp_set_affinity_format("L%L n%n of %N");
  length = omp_capture_affinity(buffer, sizeof buffer, NULL);
  printf("icv format %zu [%s]\n", length, buffer);
  length = omp_capture_affinity(buffer, sizeof buffer, "");
  printf("empty format %zu [%s]\n", length, buffer);
  printf("length only %zu\n", omp_capture_affinity(NULL, 0, "%{nesting_level}xyz"));
}

static void hints(void) {
  // libgomp 12 does not export omp_init_lock_with_hint, so only the hint on
  // critical is compared; the lock is a plain one.
  omp_lock_t lock;
  omp_init_lock(&lock);
  long counter = 0, critical_counter = 0;
#pragma omp parallel
  for (int k = 0; k < 1000; ++k) {
    omp_set_lock(&lock);
    ++counter;
    omp_unset_lock(&lock);
#pragma omp critical(hinted) hint(omp_sync_hint_speculative)
    ++critical_counter;
  }
  omp_destroy_lock(&lock);
  printf("hinted lock %ld critical %ld per thread\n", counter / omp_get_max_threads(),
         critical_counter / omp_get_max_threads());
}

static void predefined_allocators(void) {
  const omp_allocator_handle_t all[] = {omp_default_mem_alloc, omp_large_cap_mem_alloc,
                                        omp_const_mem_alloc,   omp_high_bw_mem_alloc,
                                        omp_low_lat_mem_alloc, omp_cgroup_mem_alloc,
                                        omp_pteam_mem_alloc,   omp_thread_mem_alloc};
  printf("default allocator %d\n", (int)omp_get_default_allocator());
  for (int a = 0; a < 8; ++a) {
    unsigned char *p = omp_alloc(1000, all[a]);
    if (p) memset(p, a + 1, 1000);
    unsigned char *q = omp_aligned_alloc(256, 100, all[a]);
    int *z = omp_calloc(50, sizeof(int), all[a]);
    int zeroed = z != NULL;
    for (int i = 0; z && i < 50; ++i) zeroed &= z[i] == 0;
    printf("allocator %d: alloc %d aligned(256) %d calloc zeroed %d\n", (int)all[a],
           p != NULL && filled(p, 1000, (unsigned char)(a + 1)), aligned_to(q, 256), zeroed);
    omp_free(p, all[a]);
    omp_free(q, all[a]);
    omp_free(z, omp_null_allocator);
  }
  printf("alloc 0 bytes %s\n", omp_alloc(0, omp_default_mem_alloc) ? "block" : "NULL");
  volatile size_t half = SIZE_MAX / 2;
  printf("calloc overflow %s\n", omp_calloc(half, 4, omp_default_mem_alloc) ? "block" : "NULL");
  omp_free(NULL, omp_default_mem_alloc);

  unsigned char *grown = omp_realloc(NULL, 16, omp_default_mem_alloc, omp_null_allocator);
  memset(grown, 0x5a, 16);
  grown = omp_realloc(grown, 100000, omp_default_mem_alloc, omp_default_mem_alloc);
  printf("realloc keeps contents %d\n", grown != NULL && filled(grown, 16, 0x5a));
  grown = omp_realloc(grown, 8, omp_null_allocator, omp_default_mem_alloc);
  printf("realloc shrinks %d\n", grown != NULL && filled(grown, 8, 0x5a));
  printf("realloc to 0 %s\n",
         omp_realloc(grown, 0, omp_default_mem_alloc, omp_default_mem_alloc) ? "block" : "NULL");
}

static void user_allocators(void) {
  omp_alloctrait_t aligned_traits[] = {{omp_atk_alignment, 4096}};
  omp_allocator_handle_t aligned = omp_init_allocator(omp_default_mem_space, 1, aligned_traits);
  void *page = omp_alloc(10, aligned);
  printf("alignment trait 4096 %d\n", aligned_to(page, 4096));
  omp_free(page, aligned);
  omp_destroy_allocator(aligned);

  omp_alloctrait_t null_pool[] = {{omp_atk_pool_size, 1000}, {omp_atk_fallback, omp_atv_null_fb}};
  omp_allocator_handle_t small = omp_init_allocator(omp_large_cap_mem_space, 2, null_pool);
  void *first = omp_alloc(600, small), *second = omp_alloc(600, small);
  printf("pool 1000, null_fb: %d %d", first != NULL, second != NULL);
  omp_free(first, small);
  second = omp_alloc(600, small);
  printf(", after a free %d\n", second != NULL);

  omp_alloctrait_t default_pool[] = {{omp_atk_pool_size, 100},
                                     {omp_atk_fallback, omp_atv_default_mem_fb}};
  omp_allocator_handle_t tiny = omp_init_allocator(omp_default_mem_space, 2, default_pool);
  void *spilled = omp_alloc(600, tiny);
  printf("pool 100, default_mem_fb: %d\n", spilled != NULL);
  omp_free(spilled, tiny);

  omp_alloctrait_t chained[] = {{omp_atk_pool_size, 100},
                                {omp_atk_fallback, omp_atv_allocator_fb},
                                {omp_atk_fb_data, (omp_uintptr_t)small}};
  omp_allocator_handle_t front = omp_init_allocator(omp_default_mem_space, 3, chained);
  void *via_small = omp_alloc(300, front);
  void *nowhere = omp_alloc(300, front);
  printf("allocator_fb into the full pool: %d %d\n", via_small != NULL, nowhere != NULL);
  omp_free(via_small, front);
  omp_free(second, small);

  omp_set_default_allocator(small);
  printf("default allocator is the pool %d\n", omp_get_default_allocator() == small);
  void *a = omp_alloc(900, omp_null_allocator), *b = omp_alloc(900, omp_null_allocator);
  printf("null allocator uses it: %d %d\n", a != NULL, b != NULL);
  omp_free(a, omp_null_allocator);
  omp_set_default_allocator(omp_default_mem_alloc);
  omp_destroy_allocator(front);
  omp_destroy_allocator(tiny);
  omp_destroy_allocator(small);

  omp_alloctrait_t bad_alignment[] = {{omp_atk_alignment, 48}};
  omp_alloctrait_t bad_key[] = {{(omp_alloctrait_key_t)99, 1}};
  omp_alloctrait_t bad_value[] = {{omp_atk_sync_hint, 99}};
  omp_alloctrait_t defaults[] = {{omp_atk_alignment, omp_atv_default},
                                 {omp_atk_sync_hint, omp_atv_contended},
                                 {omp_atk_access, omp_atv_all},
                                 {omp_atk_partition, omp_atv_blocked},
                                 {omp_atk_pinned, omp_atv_false}};
  printf("refused: alignment 48 %d, unknown key %d, bad value %d, unknown memspace %d\n",
         omp_init_allocator(omp_default_mem_space, 1, bad_alignment) == omp_null_allocator,
         omp_init_allocator(omp_default_mem_space, 1, bad_key) == omp_null_allocator,
         omp_init_allocator(omp_default_mem_space, 1, bad_value) == omp_null_allocator,
         omp_init_allocator((omp_memspace_handle_t)9, 0, NULL) == omp_null_allocator);
  omp_allocator_handle_t plain = omp_init_allocator(omp_low_lat_mem_space, 5, defaults);
  printf("accepted: defaults and valid values %d\n", plain != omp_null_allocator);
  omp_destroy_allocator(plain);
}

static void allocate_clause(void) {
  omp_alloctrait_t traits[] = {{omp_atk_alignment, 256}};
  omp_allocator_handle_t wide = omp_init_allocator(omp_default_mem_space, 1, traits);
  static int aligned_ok[MAX_THREADS];
  static long sums[MAX_THREADS];
  int team = 0;
  long block[64];
#pragma omp parallel private(block) allocate(wide : block)
  {
    int me = omp_get_thread_num();
    for (int i = 0; i < 64; ++i) block[i] = (long)i * (me + 1);
    long sum = 0;
    for (int i = 0; i < 64; ++i) sum += block[i];
    if (me < MAX_THREADS) {
      aligned_ok[me] = aligned_to(block, 256);
      sums[me] = sum;
    }
#pragma omp single
    team = omp_get_num_threads();
  }
  for (int t = 0; t < team && t < MAX_THREADS; ++t)
    printf("allocate clause thread %d: aligned %d sum %ld\n", t, aligned_ok[t], sums[t]);
  omp_destroy_allocator(wide);
}

int main(void) {
  devices_and_icvs();
  affinity();
  hints();
  predefined_allocators();
  user_allocators();
  allocate_clause();
  return 0;
}
