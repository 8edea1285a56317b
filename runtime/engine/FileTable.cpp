//===- FileTable.cpp - Verilog file descriptors over host files ------------===//
#include "engine/FileTable.h"

namespace synergy::engine {

static constexpr uint32_t kDescriptorBit = 0x80000000u;
static constexpr uint32_t kStdin = kDescriptorBit | 0;
static constexpr uint32_t kStdout = kDescriptorBit | 1;
static constexpr uint32_t kStderr = kDescriptorBit | 2;
static constexpr uint32_t kFirstFileDescriptor = 3;
static constexpr int kChannelCount = 31;  // bit 31 marks a plain descriptor

FileTable::FileTable(std::vector<DirectoryMapping> mappings) : mappings_(std::move(mappings)) {}

FileTable::~FileTable() { closeAll(); }

void FileTable::closeAll() {
  for (auto& [descriptor, file] : files_)
    std::fclose(file.stream);
  files_.clear();
}

std::string FileTable::resolve(const std::string& name) const {
  for (const auto& mapping : mappings_) {
    const std::string& guest = mapping.guestPath;
    if (guest.empty())
      continue;
    if (name == guest)
      return mapping.hostPath;
    if (name.size() > guest.size() && name.compare(0, guest.size(), guest) == 0 &&
        (name[guest.size()] == '/' || guest.back() == '/'))
      return mapping.hostPath + "/" + name.substr(guest.size() + (name[guest.size()] == '/' ? 1 : 0));
  }
  return name;
}

uint32_t FileTable::open(const std::string& name, const std::string& mode) {
  std::string path = resolve(name);
  std::FILE* stream = std::fopen(path.c_str(), mode.c_str());
  if (!stream)
    return 0;
  uint32_t number = kFirstFileDescriptor;
  while (files_.count(kDescriptorBit | number))
    ++number;
  files_[kDescriptorBit | number] = {stream, path, mode};
  return kDescriptorBit | number;
}

uint32_t FileTable::openMultichannel(const std::string& name) {
  for (int channel = 1; channel < kChannelCount; ++channel) {
    uint32_t bit = 1u << channel;
    if (files_.count(bit))
      continue;
    std::string path = resolve(name);
    std::FILE* stream = std::fopen(path.c_str(), "w");
    if (!stream)
      return 0;
    files_[bit] = {stream, path, "w"};
    return bit;
  }
  return 0;
}

void FileTable::close(uint32_t descriptorOrChannels) {
  std::vector<uint32_t> keys;
  if (descriptorOrChannels & kDescriptorBit)
    keys.push_back(descriptorOrChannels);
  else
    for (int channel = 1; channel < kChannelCount; ++channel)
      if (descriptorOrChannels & (1u << channel))
        keys.push_back(1u << channel);
  for (uint32_t key : keys) {
    auto it = files_.find(key);
    if (it == files_.end())
      continue;
    std::fclose(it->second.stream);
    files_.erase(it);
  }
}

std::FILE* FileTable::stream(uint32_t descriptor) const {
  switch (descriptor) {
  case kStdin:
    return stdin;
  case kStdout:
    return stdout;
  case kStderr:
    return stderr;
  default:
    break;
  }
  auto it = files_.find(descriptor);
  return it == files_.end() ? nullptr : it->second.stream;
}

std::vector<std::FILE*> FileTable::streamsFor(uint32_t descriptorOrChannels) const {
  std::vector<std::FILE*> streams;
  if (descriptorOrChannels & kDescriptorBit) {
    if (std::FILE* single = stream(descriptorOrChannels))
      streams.push_back(single);
    return streams;
  }
  if (descriptorOrChannels & 1u)
    streams.push_back(stdout);
  for (int channel = 1; channel < kChannelCount; ++channel)
    if (descriptorOrChannels & (1u << channel))
      if (auto it = files_.find(1u << channel); it != files_.end())
        streams.push_back(it->second.stream);
  return streams;
}

void FileTable::write(uint32_t descriptorOrChannels, const std::string& text) {
  for (std::FILE* out : streamsFor(descriptorOrChannels))
    std::fwrite(text.data(), 1, text.size(), out);
}

void FileTable::flush(uint32_t descriptorOrChannels) {
  for (std::FILE* out : streamsFor(descriptorOrChannels))
    std::fflush(out);
}

void FileTable::flushAll() {
  std::fflush(stdout);
  std::fflush(stderr);
  for (auto& [descriptor, file] : files_)
    std::fflush(file.stream);
}

std::vector<OpenFileRecord> FileTable::records() const {
  std::vector<OpenFileRecord> result;
  for (const auto& [descriptor, file] : files_) {
    std::fflush(file.stream);
    result.push_back({descriptor, file.path, file.mode, static_cast<int64_t>(std::ftell(file.stream))});
  }
  return result;
}

bool FileTable::restore(const std::vector<OpenFileRecord>& records, std::string& error) {
  closeAll();
  for (const auto& record : records) {
    // Reopening for writing must not truncate what the first run wrote.
    std::string mode = record.mode;
    if (!mode.empty() && mode[0] == 'w')
      mode = record.mode.find('b') != std::string::npos ? "r+b" : "r+";
    std::FILE* stream = std::fopen(record.path.c_str(), mode.c_str());
    if (!stream || std::fseek(stream, static_cast<long>(record.position), SEEK_SET) != 0) {
      error = "cannot reopen '" + record.path + "' named in the saved state";
      if (stream)
        std::fclose(stream);
      closeAll();
      return false;
    }
    files_[record.descriptor] = {stream, record.path, record.mode};
  }
  return true;
}

}  // namespace synergy::engine
