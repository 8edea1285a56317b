// Unit tests for the object cache: what it refuses to hand out (truncated,
// swapped and planted objects, another key's index entry, also once a
// verification record lets lookups skip the hash) and which cache
// directories it refuses to use or must not create; and that a key recorded
// for a source file's identity never names a changed file.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "objectcache/ObjectCache.h"

using synergy::objectcache::ObjectCache;

namespace fs = std::filesystem;

namespace {

std::string readAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void writeAll(const std::string& path, const std::string& contents) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << contents;
}

// Overwrites the file's first bytes in place (same inode, same size) and
// sets its modification time back to what it was, as someone hiding a
// change would.
void overwriteKeepingSizeAndMtime(const std::string& path, const std::string& bytes) {
  struct stat before{};
  ASSERT_EQ(stat(path.c_str(), &before), 0);
  int fd = open(path.c_str(), O_WRONLY);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(pwrite(fd, bytes.data(), bytes.size(), 0), ssize_t(bytes.size()));
  struct timespec times[2] = {before.st_atim, before.st_mtim};
  ASSERT_EQ(futimens(fd, times), 0);
  close(fd);
  struct stat after{};
  ASSERT_EQ(stat(path.c_str(), &after), 0);
  ASSERT_EQ(after.st_size, before.st_size);
  ASSERT_EQ(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec);
}

// Verification records are written only for objects whose last change is
// two seconds old.
void waitUntilObjectsSettle() { std::this_thread::sleep_for(std::chrono::milliseconds(2100)); }

unsigned modeOf(const std::string& path) {
  struct stat st{};
  stat(path.c_str(), &st);
  return st.st_mode & 0777;
}

// Points the cache at a fresh directory for the test, and restores the
// environment afterwards.
class ObjectCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* var : {"SYNERGY_CACHE_DIR", "XDG_CACHE_HOME", "HOME"})
      if (const char* value = std::getenv(var)) saved_.emplace_back(var, value);
    std::string pattern = fs::temp_directory_path().string() + "/objectcache-test-XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    scratch_ = pattern;
    root_ = scratch_ + "/cache";
    setenv("SYNERGY_CACHE_DIR", root_.c_str(), 1);
  }
  void TearDown() override {
    for (const char* var : {"SYNERGY_CACHE_DIR", "XDG_CACHE_HOME", "HOME"}) unsetenv(var);
    for (const auto& [var, value] : saved_) setenv(var.c_str(), value.c_str(), 1);
    std::error_code ignored;
    fs::remove_all(scratch_, ignored);
  }

  // Publishes `contents` for `key` and returns the cached path.
  std::string publish(const ObjectCache& cache, const std::string& key,
                      const std::string& contents) {
    std::string error;
    auto build = cache.makeBuildDirectory(error);
    EXPECT_TRUE(build) << error;
    writeAll(*build + "/out", contents);
    auto path = cache.publish(key, *build + "/out", error);
    EXPECT_TRUE(path) << error;
    fs::remove_all(*build);
    return path.value_or("");
  }

  std::vector<std::pair<std::string, std::string>> saved_;
  std::string scratch_, root_;
};

}  // namespace

TEST_F(ObjectCacheTest, CreatesPrivateDirectoriesAndFindsWhatItPublished) {
  std::string error;
  auto cache = ObjectCache::open("aot", error);
  ASSERT_TRUE(cache) << error;
  EXPECT_EQ(cache->directory(), root_ + "/aot");
  EXPECT_EQ(modeOf(root_), 0700u);
  EXPECT_EQ(modeOf(root_ + "/aot"), 0700u);
  EXPECT_EQ(cache->find("k.so"), std::nullopt);
  std::string path = publish(*cache, "k.so", "object one");
  EXPECT_EQ(cache->find("k.so"), path);
  EXPECT_EQ(readAll(path), "object one");
  EXPECT_EQ(fs::path(path).extension(), ".so");
}

TEST_F(ObjectCacheTest, TruncatedSwappedOrPlantedObjectsAreNotHandedOut) {
  std::string error;
  auto cache = ObjectCache::open("aot", error);
  ASSERT_TRUE(cache) << error;
  std::string path = publish(*cache, "k.so", "the real object");
  std::string other = publish(*cache, "other.so", "another program");

  fs::resize_file(path, 4);
  EXPECT_EQ(cache->find("k.so"), std::nullopt);

  fs::copy_file(other, path, fs::copy_options::overwrite_existing);
  EXPECT_EQ(cache->find("k.so"), std::nullopt);

  // Another key's index entry under this key's name names the wrong key.
  fs::copy_file(cache->directory() + "/other.so.index", cache->directory() + "/k.so.index",
                fs::copy_options::overwrite_existing);
  EXPECT_EQ(cache->find("k.so"), std::nullopt);

  // A file planted where an object of the old layout lived is not an entry.
  fs::remove(cache->directory() + "/k.so.index");
  writeAll(cache->directory() + "/k.so", "planted");
  EXPECT_EQ(cache->find("k.so"), std::nullopt);

  // Republishing repairs the entry; the other key was never disturbed.
  std::string repaired = publish(*cache, "k.so", "the real object");
  EXPECT_EQ(cache->find("k.so"), repaired);
  EXPECT_EQ(readAll(repaired), "the real object");
  EXPECT_EQ(cache->find("other.so"), other);
}

TEST_F(ObjectCacheTest, KeysThatAreNotPlainFileNamesAreRefused) {
  std::string error;
  auto cache = ObjectCache::open("aot", error);
  ASSERT_TRUE(cache) << error;
  EXPECT_EQ(cache->find("../k.so"), std::nullopt);
  EXPECT_FALSE(cache->publish("../k.so", root_ + "/nothing", error));
  EXPECT_NE(error.find("invalid cache key"), std::string::npos) << error;
}

TEST_F(ObjectCacheTest, RefusesADirectoryOthersCanWrite) {
  ASSERT_EQ(mkdir(root_.c_str(), 0700), 0);
  chmod(root_.c_str(), 0777);
  std::string error;
  EXPECT_FALSE(ObjectCache::open("aot", error));
  EXPECT_EQ(error, "cache directory " + root_ +
                       " is writable by other users (mode 0777); remove it or run chmod 700 on it");
  EXPECT_FALSE(fs::exists(root_ + "/aot")) << "nothing is created inside a refused directory";
}

TEST_F(ObjectCacheTest, NarrowsAReadableDirectoryOfTheUser) {
  ASSERT_EQ(mkdir(root_.c_str(), 0700), 0);
  chmod(root_.c_str(), 0755);
  std::string error;
  EXPECT_TRUE(ObjectCache::open("aot", error)) << error;
  EXPECT_EQ(modeOf(root_), 0700u);
}

TEST_F(ObjectCacheTest, RefusesADirectoryOwnedBySomeoneElse) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to give a directory away";
  ASSERT_EQ(mkdir(root_.c_str(), 0700), 0);
  ASSERT_EQ(chown(root_.c_str(), 65534, 65534), 0);
  std::string error;
  EXPECT_FALSE(ObjectCache::open("aot", error));
  EXPECT_NE(error.find("cache directory " + root_ + " is owned by uid 65534, not by the user"),
            std::string::npos)
      << error;
}

TEST_F(ObjectCacheTest, WithoutAnyLocationThereIsNoCache) {
  for (const char* var : {"SYNERGY_CACHE_DIR", "XDG_CACHE_HOME", "HOME"}) unsetenv(var);
  std::string error;
  EXPECT_FALSE(ObjectCache::open("aot", error));
  EXPECT_EQ(error, "no cache directory for compiled code: set SYNERGY_CACHE_DIR (or HOME)");
}

TEST_F(ObjectCacheTest, OpenExistingCreatesAndChangesNothing) {
  EXPECT_FALSE(ObjectCache::openExisting("aot"));
  EXPECT_FALSE(fs::exists(root_)) << "a lookup must not create the cache directory";
  ASSERT_EQ(mkdir(root_.c_str(), 0755), 0);
  EXPECT_FALSE(ObjectCache::openExisting("aot"));
  EXPECT_EQ(modeOf(root_), 0755u) << "only open() narrows a readable directory";
  EXPECT_FALSE(fs::exists(root_ + "/aot"));
  std::string error;
  ASSERT_TRUE(ObjectCache::open("aot", error)) << error;
  auto existing = ObjectCache::openExisting("aot");
  ASSERT_TRUE(existing);
  EXPECT_EQ(existing->directory(), root_ + "/aot");
  chmod((root_ + "/aot").c_str(), 0770);
  EXPECT_FALSE(ObjectCache::openExisting("aot"));
}

TEST_F(ObjectCacheTest, VerifiedIdentityNeverLetsAChangedObjectThrough) {
  std::string error;
  auto cache = ObjectCache::open("aot", error);
  ASSERT_TRUE(cache) << error;
  std::string path = publish(*cache, "k.so", "the real object");
  std::string other = publish(*cache, "other.so", "another program");
  std::string digest = fs::path(path).stem().string();
  std::string record = cache->directory() + "/" + digest + ".verified";

  // Just published: changed too recently for its identity to be recorded.
  EXPECT_EQ(cache->find("k.so"), path);
  EXPECT_FALSE(fs::exists(record));
  waitUntilObjectsSettle();
  EXPECT_EQ(cache->find("k.so"), path);
  ASSERT_TRUE(fs::exists(record));
  EXPECT_EQ(readAll(record).rfind("synergy-object-verified-1 " + digest + " ", 0), 0u);
  EXPECT_EQ(cache->find("k.so"), path);

  // Changed in place with its size and modification time kept.
  overwriteKeepingSizeAndMtime(path, "THE");
  EXPECT_EQ(cache->find("k.so"), std::nullopt);

  // Put back byte for byte: the hash passes again (ctime moved, so the
  // record no longer matches and is not what let it through).
  overwriteKeepingSizeAndMtime(path, "the");
  EXPECT_EQ(cache->find("k.so"), path);

  // Replaced by rename with a file of the same size.
  writeAll(path + ".new", "THE REAL OBJECT");
  fs::rename(path + ".new", path);
  EXPECT_EQ(cache->find("k.so"), std::nullopt);

  // A record copied from another, settled object does not vouch for this one.
  publish(*cache, "k.so", "the real object");
  waitUntilObjectsSettle();
  EXPECT_EQ(cache->find("other.so"), other);
  std::string otherRecord =
      cache->directory() + "/" + fs::path(other).stem().string() + ".verified";
  ASSERT_TRUE(fs::exists(otherRecord));
  fs::copy_file(otherRecord, record, fs::copy_options::overwrite_existing);
  overwriteKeepingSizeAndMtime(path, "THE");
  EXPECT_EQ(cache->find("k.so"), std::nullopt);
}

TEST_F(ObjectCacheTest, SourceKeyRecordNeverOutlivesAChangeOfTheFile) {
  std::string error;
  auto cache = ObjectCache::open("aot", error);
  ASSERT_TRUE(cache) << error;
  std::string source = scratch_ + "/module.wasm";
  writeAll(source, "module one");
  auto keyOf = [&](const std::string& scope) {
    int fd = open(source.c_str(), O_RDONLY);
    EXPECT_GE(fd, 0);
    auto key = cache->keyOfUnchangedFile(fd, scope);
    close(fd);
    return key;
  };
  auto record = [&](const std::string& key) {
    int fd = open(source.c_str(), O_RDONLY);
    ASSERT_GE(fd, 0);
    struct stat readFrom{};
    ASSERT_EQ(fstat(fd, &readFrom), 0);
    cache->recordKeyOfFile(fd, readFrom, "scope", key);
    close(fd);
  };

  // Just written: changed too recently for its identity to stand for it.
  record("one.so");
  EXPECT_EQ(keyOf("scope"), std::nullopt);
  waitUntilObjectsSettle();
  record("one.so");
  EXPECT_EQ(keyOf("scope"), "one.so");
  EXPECT_EQ(keyOf("another runtime"), std::nullopt);

  // Changed in place with its size and modification time kept.
  overwriteKeepingSizeAndMtime(source, "MODULE");
  EXPECT_EQ(keyOf("scope"), std::nullopt);

  // Changed between the read and the record: nothing is recorded.
  waitUntilObjectsSettle();
  {
    int fd = open(source.c_str(), O_RDONLY);
    ASSERT_GE(fd, 0);
    struct stat readFrom{};
    ASSERT_EQ(fstat(fd, &readFrom), 0);
    overwriteKeepingSizeAndMtime(source, "module");
    waitUntilObjectsSettle();
    cache->recordKeyOfFile(fd, readFrom, "scope", "stale.so");
    close(fd);
  }
  EXPECT_EQ(keyOf("scope"), std::nullopt);

  // Replaced by rename with a file of the same size.
  record("one.so");
  ASSERT_EQ(keyOf("scope"), "one.so");
  writeAll(source + ".new", "module two");
  fs::rename(source + ".new", source);
  EXPECT_EQ(keyOf("scope"), std::nullopt);

  // Records that do not parse, or name no valid key, name nothing.
  waitUntilObjectsSettle();
  record("two.so");
  ASSERT_EQ(keyOf("scope"), "two.so");
  std::vector<std::string> records;
  for (const auto& entry : fs::directory_iterator(cache->directory()))
    if (entry.path().extension() == ".source") records.push_back(entry.path().string());
  ASSERT_FALSE(records.empty());
  for (const std::string& garbage : {std::string("garbage"), std::string(4096, 'x')}) {
    for (const std::string& path : records) writeAll(path, garbage);
    EXPECT_EQ(keyOf("scope"), std::nullopt);
  }
  record("two.so");
  ASSERT_EQ(keyOf("scope"), "two.so");
  for (const std::string& path : records) {
    std::string text = readAll(path);
    if (text.size() > 8) writeAll(path, text.substr(0, text.size() - 7) + "../x\n");
  }
  EXPECT_EQ(keyOf("scope"), std::nullopt);
}
