//===- TaskServicer.cpp - performs the system tasks an engine traps into ---===//
#include "engine/TaskServicer.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <utility>

#include "engine/ScanFormat.h"
#include "engine/VerilogRandom.h"
#include "hwlower/ReadmemFile.h"

namespace synergy::engine {

using hwlower::kNoElement;
using hwlower::kNoState;
using hwlower::Task;
using hwlower::TaskArg;
using hwlower::TaskArgKind;

TaskServicer::TaskServicer(const hwlower::EngineManifest& manifest, EngineInstance& engine, FileTable& files,
                           std::vector<std::string> plusargs)
    : manifest_(manifest), engine_(engine), files_(files), plusargs_(std::move(plusargs)) {
  for (const Task& task : manifest_.tasks)
    actions_.push_back(classifyTask(task.name));
}

uint64_t extendedWord(uint64_t word, uint32_t width, bool isSigned) {
  if (width >= 64)
    return word;
  word &= (uint64_t(1) << width) - 1;
  if (isSigned && width > 0 && (word >> (width - 1)) & 1)
    word |= ~uint64_t(0) << width;
  return word;
}

// Arguments the services below read by position without checking the
// count; every other argument is optional or read through argDescriptor.
size_t TaskServicer::minimumArgs(SystemTask kind) {
  switch (kind) {
  case SystemTask::Fopen:
  case SystemTask::Ungetc:
  case SystemTask::Fgets:
  case SystemTask::TestPlusargs:
  case SystemTask::ValuePlusargs:
    return 1;
  case SystemTask::Fseek:
    return 3;
  default:
    return 0;
  }
}

uint64_t TaskServicer::argElement(const TaskArg& arg) {
  if (arg.element != kNoElement)
    return arg.element;
  if (arg.indexStateId != kNoState) {
    const auto& index = manifest_.states[arg.indexStateId];
    return extendedWord(engine_.getWord(index.id, 0), index.width, false);
  }
  return 0;
}

BitValue TaskServicer::readArg(const TaskArg& arg) {
  switch (arg.kind) {
  case TaskArgKind::Value:
    return engine_.getState(arg.stateId, argElement(arg), arg.width, arg.isSigned);
  case TaskArgKind::String:
    return BitValue::fromString(arg.text);
  case TaskArgKind::Time:
    return BitValue::fromUint64(arg.text == "$stime" ? (time_ & 0xffffffffu) : time_, arg.text == "$stime" ? 32 : 64);
  case TaskArgKind::Empty:
    break;
  }
  return BitValue::zero(1);
}

void TaskServicer::writeArg(const TaskArg& arg, const BitValue& value) {
  if (arg.kind != TaskArgKind::Value || arg.stateId == kNoState)
    return;
  const auto& state = manifest_.states[arg.stateId];
  BitValue sized = value;
  sized.isSigned = false;
  engine_.setState(arg.stateId, argElement(arg), sized.resized(state.width));
}

void TaskServicer::writeResult(const Task& task, const BitValue& value) {
  if (task.resultId == kNoState)
    return;
  const auto& state = manifest_.states[task.resultId];
  engine_.setState(task.resultId, 0, value.resized(state.width));
}

void TaskServicer::writeResult(const Task& task, int64_t value) {
  if (task.resultId != kNoState && manifest_.states[task.resultId].width <= 64) {
    uint32_t width = manifest_.states[task.resultId].width;
    engine_.setWord(task.resultId, 0, extendedWord(static_cast<uint64_t>(value), width, false));
    return;
  }
  writeResult(task, BitValue::fromInt64(value, 64));
}

// A file name or mode given either as a literal or as a variable holding
// the characters (leading NUL bytes dropped, as Icarus does).
std::string TaskServicer::argText(const TaskArg& arg) {
  if (arg.kind == TaskArgKind::String)
    return arg.text;
  std::string bytes = readArg(arg).toBytes();
  size_t first = bytes.find_first_not_of('\0');
  return first == std::string::npos ? std::string() : bytes.substr(first);
}

DisplayArg TaskServicer::displayArg(const TaskArg& arg) {
  switch (arg.kind) {
  case TaskArgKind::String:
    // vvp reads a literal as a C string: "" (one NUL byte) prints nothing.
    return DisplayArg::ofString(arg.text.substr(0, arg.text.find('\0')));
  case TaskArgKind::Empty:
    return DisplayArg::ofString(" ");
  case TaskArgKind::Time:
    if (arg.text == "$realtime")
      return DisplayArg::ofReal(static_cast<double>(time_));
    return DisplayArg::ofValue(readArg(arg));
  case TaskArgKind::Value:
    break;
  }
  BitValue value = readArg(arg);
  if (arg.isReal) {
    uint64_t bits = value.toUint64();
    double real;
    std::memcpy(&real, &bits, sizeof real);
    return DisplayArg::ofReal(real);
  }
  return DisplayArg::ofValue(std::move(value));
}

std::string TaskServicer::formatTask(const Task& task, size_t firstArg, DisplayRadix radix) {
  std::vector<DisplayArg> args;
  for (size_t i = firstArg; i < task.args.size(); ++i)
    args.push_back(displayArg(task.args[i]));
  return formatDisplay(args, radix, DisplayContext{task.scope});
}

uint32_t TaskServicer::argDescriptor(const Task& task, size_t index) {
  if (index >= task.args.size())
    return 0;
  const TaskArg& arg = task.args[index];
  if (arg.kind == TaskArgKind::Value)
    return static_cast<uint32_t>(
        extendedWord(engine_.getWord(arg.stateId, argElement(arg)), arg.width, arg.isSigned));
  return static_cast<uint32_t>(readArg(arg).toUint64());
}

// A task's name decides what servicing it does; the display family's suffix
// ("$displayh") picks the default radix. Classified once per task when the
// servicer is made, so a trap costs a switch rather than string compares.
TaskServicer::TaskAction TaskServicer::classifyTask(const std::string& name) {
  static const std::pair<const char*, SystemTask> kDisplayFamily[] = {
      {"$display", SystemTask::Display}, {"$write", SystemTask::Write},
      {"$fdisplay", SystemTask::Fdisplay}, {"$fwrite", SystemTask::Fwrite},
      {"$strobe", SystemTask::Strobe}, {"$fstrobe", SystemTask::Fstrobe},
      {"$monitor", SystemTask::Monitor}};
  for (const auto& [base, kind] : kDisplayFamily) {
    size_t length = std::strlen(base);
    if (name.compare(0, length, base) != 0)
      continue;
    std::string suffix = name.substr(length);
    if (suffix.empty())
      return {kind, DisplayRadix::Decimal};
    if (suffix == "h")
      return {kind, DisplayRadix::Hex};
    if (suffix == "b")
      return {kind, DisplayRadix::Binary};
    if (suffix == "o")
      return {kind, DisplayRadix::Octal};
  }
  static const std::map<std::string, SystemTask> kByName = {
      {"$monitoron", SystemTask::MonitorOn}, {"$monitoroff", SystemTask::MonitorOff},
      {"$fopen", SystemTask::Fopen}, {"$fclose", SystemTask::Fclose},
      {"$fflush", SystemTask::Fflush}, {"$fgetc", SystemTask::Fgetc},
      {"$ungetc", SystemTask::Ungetc}, {"$fgets", SystemTask::Fgets},
      {"$feof", SystemTask::Feof}, {"$ftell", SystemTask::Ftell},
      {"$fseek", SystemTask::Fseek}, {"$rewind", SystemTask::Rewind},
      {"$fread", SystemTask::Fread}, {"$fscanf", SystemTask::Fscanf},
      {"$sscanf", SystemTask::Sscanf}, {"$readmemh", SystemTask::Readmemh},
      {"$readmemb", SystemTask::Readmemb}, {"$finish", SystemTask::Finish},
      {"$stop", SystemTask::Stop}, {"$time", SystemTask::Time},
      {"$stime", SystemTask::Stime}, {"$realtime", SystemTask::Realtime},
      {"$random", SystemTask::Random}, {"$urandom", SystemTask::Urandom},
      {"$urandom_range", SystemTask::UrandomRange}, {"$test$plusargs", SystemTask::TestPlusargs},
      {"$value$plusargs", SystemTask::ValuePlusargs}, {"$save", SystemTask::Save},
      {"$restart", SystemTask::Restart}, {"$yield", SystemTask::Yield},
      {hwlower::kRecursionLimitTask, SystemTask::RecursionLimit}};
  auto known = kByName.find(name);
  return {known == kByName.end() ? SystemTask::Unsupported : known->second, DisplayRadix::Decimal};
}

void TaskServicer::serviceFopen(const Task& task) {
  if (task.args.empty()) {
    writeResult(task, 0);
    return;
  }
  std::string name = argText(task.args[0]);
  uint32_t descriptor = task.args.size() > 1 ? files_.open(name, argText(task.args[1]))
                                             : files_.openMultichannel(name);
  writeResult(task, BitValue::fromUint64(descriptor, 32));
}

namespace {

// Writes `byte` into bits low+7..low of `value` (low < width), dropping
// those at or above its width. $fread reads an element of width W as the
// big-endian number its ceil(W / 8) bytes spell, truncated to W bits, as
// Icarus does: byte k of n lands at bit 8 * (n - 1 - k), and only the first
// byte can lose bits. One masked store per word touched; bit by bit this
// was most of the hypervisor's CPU for a $fread it serves.
void placeByte(BitValue& value, uint32_t low, uint8_t byte) {
  uint32_t kept = std::min<uint32_t>(8, value.width - low);
  uint64_t mask = ((uint64_t(1) << kept) - 1) << (low % 32);
  uint64_t bits = (uint64_t(byte) << (low % 32)) & mask;
  for (size_t word = low / 32; mask != 0; ++word, mask >>= 32, bits >>= 32)
    value.words[word] = uint32_t((value.words[word] & ~mask) | bits);
}

}  // namespace

// The bytes come first, then the elements they fill, so that a stream
// that runs short leaves the engine as it was.
bool TaskServicer::serviceFread(const Task& task, InputStream* in) {
  if (task.args.size() < 2) {
    writeResult(task, 0);
    return true;
  }
  const TaskArg& target = task.args[0];
  if (!in || target.kind != TaskArgKind::Value) {
    writeResult(task, 0);
    return true;
  }
  const auto& state = manifest_.states[target.stateId];
  bool wholeMemory = state.depth > 0 && target.element == kNoElement && target.indexStateId == kNoState;
  uint64_t first = 0;
  uint64_t count = 1;
  if (wholeMemory) {
    // The start argument is a Verilog index: element 0 is the lowest one.
    if (task.args.size() > 2 && task.args[2].kind == TaskArgKind::Value) {
      int64_t start = readArg(task.args[2]).resized(64).toInt64() - state.base;
      first = start < 0 ? state.depth : static_cast<uint64_t>(start);
    }
    count = task.args.size() > 3 ? readArg(task.args[3]).toUint64() : state.depth - std::min(first, state.depth);
  }
  uint64_t depth = std::max<uint64_t>(state.depth, 1);
  uint64_t elements = std::min(count, depth - std::min(first, depth));
  uint32_t bytesPerElement = (state.width + 7) / 8;
  std::string bytes;
  for (uint64_t wanted = elements * bytesPerElement; bytes.size() < wanted;) {
    int c = in->get();
    if (c == EOF)
      break;
    bytes.push_back(static_cast<char>(c));
  }
  if (in->ranShort())
    return false;
  for (uint64_t e = 0; e * bytesPerElement < bytes.size(); ++e) {
    uint64_t element = wholeMemory ? first + e : argElement(target);
    uint64_t got = std::min<uint64_t>(bytesPerElement, bytes.size() - e * bytesPerElement);
    // Only an element the file ends inside keeps some of its old bits; a
    // whole one is not read first, which saves the engine an evaluation
    // per $fread (file_sum: one in every tick).
    BitValue value = got == bytesPerElement ? BitValue::zero(state.width)
                                            : engine_.getState(state.id, element, state.width, false);
    // A short read fills the element's most significant bytes and keeps
    // the bits below them.
    for (uint64_t k = 0; k < got; ++k)
      placeByte(value, 8 * (bytesPerElement - 1 - uint32_t(k)),
                static_cast<uint8_t>(bytes[e * bytesPerElement + k]));
    engine_.setState(state.id, element, value);
  }
  writeResult(task, static_cast<int64_t>(bytes.size()));
  return true;
}

// $fscanf reads `in`, $sscanf its first argument's text. The items are
// all scanned before the first is written.
bool TaskServicer::serviceScanf(const Task& task, InputStream* in, bool fromFile) {
  if (task.args.size() < 2) {
    writeResult(task, -1);
    return true;
  }
  std::string text;
  size_t position = 0;
  CharSource source;
  if (fromFile) {
    if (!in) {
      writeResult(task, -1);
      return true;
    }
    source.get = [in] { return in->get(); };
    source.unget = [in](int c) {
      if (c != EOF)
        in->unget(static_cast<uint8_t>(c));
    };
  } else {
    text = argText(task.args[0]);
    source.get = [&] { return position < text.size() ? static_cast<unsigned char>(text[position++]) : EOF; };
    source.unget = [&](int) { --position; };
  }
  std::vector<ScannedItem> items;
  int result = scanFormatted(source, argText(task.args[1]), items);
  if (in && in->ranShort())
    return false;
  for (size_t i = 0; i < items.size() && 2 + i < task.args.size(); ++i) {
    const TaskArg& target = task.args[2 + i];
    if (target.kind != TaskArgKind::Value)
      continue;
    const auto& state = manifest_.states[target.stateId];
    writeArg(target, scannedValue(items[i], state.width, target.isReal));
  }
  writeResult(task, result);
  return true;
}

// $readmemh/$readmemb: the file as hwlower::parseReadmem reads it, into
// the memory's elements (addresses are offset by its lowest declared index).
void TaskServicer::serviceReadmem(const Task& task, int radixBits) {
  if (task.args.size() < 2 || task.args[1].kind != TaskArgKind::Value)
    return;
  int error = 0;
  auto contents = files_.readGuestFile(argText(task.args[0]), error);
  if (!contents) {
    std::fprintf(stderr, "%s:%u: warning: %s: cannot read '%s': %s\n", task.file.c_str(), task.line,
                 task.name.c_str(), argText(task.args[0]).c_str(), sandbox::GrantTable::describeError(error).c_str());
    return;
  }
  const auto& state = manifest_.states[task.args[1].stateId];
  const int64_t lowest = state.base;
  const int64_t highest = state.base + static_cast<int64_t>(state.depth) - 1;
  int64_t first = task.args.size() > 2 ? readArg(task.args[2]).resized(64).toInt64() : lowest;
  int64_t last = task.args.size() > 3 ? readArg(task.args[3]).resized(64).toInt64() : highest;
  unsigned radix = radixBits == 4 ? 16 : 2;
  hwlower::ReadmemLoad load =
      hwlower::parseReadmem(*contents, first, last, lowest, highest, [](const std::string& digits) {
        return static_cast<int64_t>(parseDigits(digits, 16, 64).toUint64());
      });
  for (const hwlower::ReadmemWord& word : load.words)
    engine_.setState(state.id, static_cast<uint64_t>(word.address - lowest),
                     parseDigits(word.digits, radix, state.width));
  if (hwlower::readmemLeavesRangeShort(load, last))
    files_.write(1, "WARNING: " + task.file + ":" + std::to_string(task.line) + ": " + task.name + "(" +
                        argText(task.args[0]) + "): Not enough words in the file for the requested range [" +
                        std::to_string(first) + ":" + std::to_string(last) + "].\n");
}

void TaskServicer::serviceRandom(const Task& task, bool isUnsigned) {
  bool seeded = !task.args.empty() && task.args[0].kind == TaskArgKind::Value;
  int32_t seed = seeded ? static_cast<int32_t>(readArg(task.args[0]).toUint64())
                        : (isUnsigned ? urandomSeed : randomSeed);
  BitValue result = isUnsigned ? BitValue::fromUint64(verilogUrandom(seed), 32)
                               : BitValue::fromInt64(verilogRandom(seed), 32);
  if (seeded && task.args[0].writable)
    writeArg(task.args[0], BitValue::fromInt64(seed, 32));
  // Icarus keeps one $urandom seed: a seeded call also reseeds the unseeded
  // sequence. $random's own seed is left alone by $random(seed).
  if (!seeded || isUnsigned)
    (isUnsigned ? urandomSeed : randomSeed) = seed;
  writeResult(task, result);
}

// vvp reads each bound as a C int (vpiIntVal): the low 32 bits, sign- or
// zero-extended from the argument's own width.
void TaskServicer::serviceUrandomRange(const Task& task) {
  auto bound = [&](size_t i) {
    return i < task.args.size() && task.args[i].kind == TaskArgKind::Value
               ? static_cast<int32_t>(static_cast<uint32_t>(readArg(task.args[i]).toUint64()))
               : 0;
  };
  writeResult(task, BitValue::fromUint64(verilogUrandomRange(urandomSeed, bound(0), bound(1)), 32));
}

void TaskServicer::servicePlusargs(const Task& task, bool withValue) {
  if (task.args.empty()) {
    writeResult(task, 0);
    return;
  }
  std::string pattern = argText(task.args[0]);
  std::string prefix = pattern.substr(0, pattern.find('%'));
  for (const auto& plusarg : plusargs_) {
    if (plusarg.rfind(prefix, 0) != 0)
      continue;
    if (withValue && task.args.size() > 1 && prefix.size() < pattern.size()) {
      std::string valueText = plusarg.substr(prefix.size());
      size_t position = 0;
      CharSource source{[&] { return position < valueText.size() ? static_cast<unsigned char>(valueText[position++]) : EOF; },
                        [&](int) { --position; }};
      std::vector<ScannedItem> items;
      scanFormatted(source, pattern.substr(prefix.size()), items);
      if (!items.empty() && task.args[1].kind == TaskArgKind::Value) {
        const auto& target = task.args[1];
        writeArg(target, scannedValue(items[0], manifest_.states[target.stateId].width, target.isReal));
      }
    }
    writeResult(task, 1);
    return;
  }
  writeResult(task, 0);
}

bool TaskServicer::onlyWritesOutput(const std::string& taskName) {
  switch (classifyTask(taskName).kind) {
  case SystemTask::Display:
  case SystemTask::Write:
  case SystemTask::Fdisplay:
  case SystemTask::Fwrite:
    return true;
  default:
    return false;
  }
}

bool TaskServicer::readsInput(const std::string& taskName) {
  switch (classifyTask(taskName).kind) {
  case SystemTask::Fgetc:
  case SystemTask::Ungetc:
  case SystemTask::Fgets:
  case SystemTask::Feof:
  case SystemTask::Fread:
  case SystemTask::Fscanf:
    return true;
  default:
    return false;
  }
}

// The input task `taskId` names, with the argument that holds its file;
// null for another task, or one without the arguments its service reads by
// position.
const Task* TaskServicer::inputTask(uint32_t taskId, size_t& descriptorArg) {
  const Task* task = manifest_.findTask(taskId);
  if (!task)
    return nullptr;
  SystemTask kind = actions_[taskId - 1].kind;
  switch (kind) {
  case SystemTask::Fgetc:
  case SystemTask::Feof:
  case SystemTask::Fscanf:
    descriptorArg = 0;
    break;
  case SystemTask::Ungetc:
  case SystemTask::Fgets:
  case SystemTask::Fread:
    descriptorArg = 1;
    break;
  default:
    return nullptr;
  }
  return task->args.size() < minimumArgs(kind) ? nullptr : task;
}

std::optional<uint32_t> TaskServicer::inputDescriptor(uint32_t taskId) {
  size_t descriptorArg = 0;
  const Task* task = inputTask(taskId, descriptorArg);
  if (!task)
    return std::nullopt;
  return argDescriptor(*task, descriptorArg);
}

bool TaskServicer::serviceInput(uint32_t taskId, InputStream* in) {
  size_t descriptorArg = 0;
  const Task* task = inputTask(taskId, descriptorArg);
  return task && serviceInputTask(*task, actions_[taskId - 1].kind, in);
}

bool TaskServicer::serviceInputTask(const Task& task, SystemTask kind, InputStream* in) {
  switch (kind) {
  case SystemTask::Fgetc: {
    int c = in ? in->get() : -1;
    if (in && in->ranShort())
      return false;
    writeResult(task, c);
    return true;
  }
  case SystemTask::Ungetc: {
    auto c = static_cast<uint8_t>(readArg(task.args[0]).toUint64() & 0xff);
    bool pushed = in && in->unget(c);
    if (in && in->ranShort())
      return false;
    writeResult(task, pushed ? 0 : -1);
    return true;
  }
  case SystemTask::Fgets: {
    const auto& target = task.args[0];
    uint32_t capacity = target.kind == TaskArgKind::Value ? manifest_.states[target.stateId].width / 8 : 0;
    std::string line;
    while (in && line.size() < capacity) {
      int c = in->get();
      if (c == EOF)
        break;
      line.push_back(static_cast<char>(c));
      if (c == '\n')
        break;
    }
    if (in && in->ranShort())
      return false;
    if (!line.empty())
      writeArg(target, BitValue::fromString(line));
    writeResult(task, static_cast<int64_t>(line.size()));
    return true;
  }
  case SystemTask::Feof:
    writeResult(task, in ? (in->atEnd() ? 1 : 0) : 1);
    return true;
  case SystemTask::Fread:
    return serviceFread(task, in);
  case SystemTask::Fscanf:
    return serviceScanf(task, in, true);
  default:
    return false;
  }
}

bool TaskServicer::service(uint32_t taskId, std::string& error) {
  const Task* found = manifest_.findTask(taskId);
  if (!found) {
    error = "synergy-run: error: engine trapped into unknown task id " + std::to_string(taskId);
    return false;
  }
  const Task& task = *found;
  const TaskAction action = actions_[taskId - 1];
  // The manifest is untrusted: a task must carry every argument its service
  // reads by position (readEngineManifest already checked their state ids).
  if (size_t needed = minimumArgs(action.kind); task.args.size() < needed) {
    error = "synergy-run: error: task " + std::to_string(taskId) + " (" + task.name + ") has " +
            std::to_string(task.args.size()) + " arguments, but needs at least " + std::to_string(needed);
    return false;
  }
  switch (action.kind) {
  case SystemTask::Display:
    files_.write(1, formatTask(task, 0, action.radix) + "\n");
    break;
  case SystemTask::Write:
    files_.write(1, formatTask(task, 0, action.radix));
    break;
  case SystemTask::Fdisplay:
    files_.write(argDescriptor(task, 0), formatTask(task, 1, action.radix) + "\n");
    break;
  case SystemTask::Fwrite:
    files_.write(argDescriptor(task, 0), formatTask(task, 1, action.radix));
    break;
  case SystemTask::Strobe:
  case SystemTask::Fstrobe:
    strobes_.push_back(&task);
    break;
  case SystemTask::Monitor:
    monitor_ = &task;
    monitorOn_ = true;
    lastMonitorValues_.reset();
    break;
  case SystemTask::MonitorOn:
    monitorOn_ = true;
    lastMonitorValues_.reset();
    break;
  case SystemTask::MonitorOff:
    monitorOn_ = false;
    break;
  case SystemTask::Fopen:
    serviceFopen(task);
    break;
  case SystemTask::Fclose:
    files_.close(argDescriptor(task, 0));
    break;
  case SystemTask::Fflush:
    if (task.args.empty())
      files_.flushAll();
    else
      files_.flush(argDescriptor(task, 0));
    break;
  case SystemTask::Fgetc:
  case SystemTask::Ungetc:
  case SystemTask::Fgets:
  case SystemTask::Feof:
  case SystemTask::Fread:
  case SystemTask::Fscanf:
    serviceInputTask(task, action.kind, files_.input(*inputDescriptor(taskId)));
    break;
  case SystemTask::Ftell: {
    std::FILE* in = files_.stream(argDescriptor(task, 0));
    writeResult(task, in ? static_cast<int64_t>(std::ftell(in)) : -1);
    break;
  }
  case SystemTask::Fseek: {
    std::FILE* in = files_.stream(argDescriptor(task, 0));
    long offset = static_cast<long>(readArg(task.args[1]).toInt64());
    int whence = static_cast<int>(readArg(task.args[2]).toUint64());
    int origin = whence == 1 ? SEEK_CUR : whence == 2 ? SEEK_END : SEEK_SET;
    writeResult(task, in && std::fseek(in, offset, origin) == 0 ? 0 : -1);
    break;
  }
  case SystemTask::Rewind: {
    std::FILE* in = files_.stream(argDescriptor(task, 0));
    writeResult(task, in && std::fseek(in, 0, SEEK_SET) == 0 ? 0 : -1);
    break;
  }
  case SystemTask::Sscanf:
    serviceScanf(task, nullptr, false);
    break;
  case SystemTask::Readmemh:
    serviceReadmem(task, 4);
    break;
  case SystemTask::Readmemb:
    serviceReadmem(task, 1);
    break;
  case SystemTask::Finish:
    if (runEnd_ == RunEnd::None)
      runEnd_ = RunEnd::Finish;
    break;
  case SystemTask::Stop:
    if (runEnd_ == RunEnd::None)
      runEnd_ = RunEnd::Stop;
    break;
  case SystemTask::Time:
  case SystemTask::Stime:
    writeResult(task, BitValue::fromUint64(action.kind == SystemTask::Stime ? (time_ & 0xffffffffu) : time_, 64));
    break;
  case SystemTask::Realtime: {
    double real = static_cast<double>(time_);
    uint64_t bits;
    std::memcpy(&bits, &real, sizeof bits);
    writeResult(task, BitValue::fromUint64(bits, 64));
    break;
  }
  case SystemTask::Random:
    serviceRandom(task, false);
    break;
  case SystemTask::Urandom:
    serviceRandom(task, true);
    break;
  case SystemTask::UrandomRange:
    serviceUrandomRange(task);
    break;
  case SystemTask::TestPlusargs:
    servicePlusargs(task, false);
    break;
  case SystemTask::ValuePlusargs:
    servicePlusargs(task, true);
    break;
  case SystemTask::Save:
    saveRequest_ = task.args.empty() ? std::string("synergy.state") : argText(task.args[0]);
    break;
  case SystemTask::Restart:
    restartRequest_ = task.args.empty() ? std::string("synergy.state") : argText(task.args[0]);
    break;
  case SystemTask::Yield:
    yieldFired_ = true;
    break;
  case SystemTask::RecursionLimit:
    // The call has not happened: nothing of the callee ran, and the run
    // stops here rather than go on with a frame it could not keep.
    error = task.file + ":" + std::to_string(task.line) + ": error: " +
            (task.args.empty() ? std::string("recursion too deep") : argText(task.args[0]));
    return false;
  case SystemTask::Unsupported:
    error = task.file + ":" + std::to_string(task.line) + ": error: unsupported system task " + task.name;
    return false;
  }
  return true;
}

void TaskServicer::endOfTick() {
  if (runEnd_ != RunEnd::Stop) {
    for (const Task* strobe : strobes_) {
      const TaskAction& action = actions_[strobe->id - 1];
      bool toFile = action.kind == SystemTask::Fstrobe;
      std::string line = formatTask(*strobe, toFile ? 1 : 0, action.radix) + "\n";
      files_.write(toFile ? argDescriptor(*strobe, 0) : 1, line);
    }
  }
  strobes_.clear();
  if (monitorActive()) {
    // vvp reprints when a monitored value changes; $time alone does not count.
    std::string key;
    for (const auto& arg : monitor_->args)
      if (arg.kind == TaskArgKind::Value)
        key += formatMinimalDigits(readArg(arg), DisplayRadix::Hex) + ",";
    if (!lastMonitorValues_ || *lastMonitorValues_ != key) {
      lastMonitorValues_ = key;
      files_.write(1, formatTask(*monitor_, 0, actions_[monitor_->id - 1].radix) + "\n");
    }
  }
}

std::optional<std::string> TaskServicer::takeSaveRequest() { return std::exchange(saveRequest_, std::nullopt); }

std::optional<std::string> TaskServicer::takeRestartRequest() {
  return std::exchange(restartRequest_, std::nullopt);
}

TaskServicer::MonitorState TaskServicer::monitorState() const {
  MonitorState state;
  if (monitor_) {
    state.taskId = monitor_->id;
    state.on = monitorOn_;
    state.lastValues = lastMonitorValues_.value_or("");
  }
  return state;
}

void TaskServicer::restoreMonitor(const MonitorState& state) {
  monitor_ = manifest_.findTask(state.taskId);
  monitorOn_ = state.on;
  lastMonitorValues_ = state.lastValues;
}

bool TaskServicer::takeYield() { return std::exchange(yieldFired_, false); }

}  // namespace synergy::engine
