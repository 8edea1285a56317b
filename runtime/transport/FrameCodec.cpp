//===- FrameCodec.cpp - Encoding and checking frame headers ---------------===//
//
// This file implements the header checks of FrameCodec.h. Fields are read
// byte by byte in little-endian order, so the format does not depend on the
// host's endianness or alignment.
//
//===----------------------------------------------------------------------===//
#include "transport/FrameCodec.h"

#include <cassert>
#include <cstring>

#include "util/LittleEndian.h"

namespace synergy::transport {

static bool isKnownFrameType(uint16_t raw) {
  switch (static_cast<FrameType>(raw)) {
    case FrameType::Hello:
    case FrameType::HelloAck:
    case FrameType::HelloRefused:
    case FrameType::Ping:
    case FrameType::Pong:
    case FrameType::RunJob:
    case FrameType::ModuleWanted:
    case FrameType::JobOutput:
    case FrameType::JobExit:
    case FrameType::JobRefused:
    case FrameType::MpiHello:
    case FrameType::MpiMessage:
    case FrameType::MpiMatched:
    case FrameType::MpiAbort:
    case FrameType::MpiRma:
    case FrameType::MpiRmaDone:
    case FrameType::MpiMessageHead:
    case FrameType::MpiMessagePart:
    case FrameType::MpiHostState:
    case FrameType::HvHello:
    case FrameType::HvWelcome:
    case FrameType::HvSubmitEngine:
    case FrameType::HvEngineReady:
    case FrameType::HvGetState:
    case FrameType::HvStateWord:
    case FrameType::HvSetState:
    case FrameType::HvEvaluate:
    case FrameType::HvEvaluated:
    case FrameType::HvResume:
    case FrameType::HvUpdate:
    case FrameType::HvThereAreUpdates:
    case FrameType::HvFlag:
    case FrameType::HvOpenLoop:
    case FrameType::HvOpenLooped:
    case FrameType::HvFinalize:
    case FrameType::HvDone:
    case FrameType::HvRefused:
    case FrameType::HvStatus:
    case FrameType::HvStatusReport:
    case FrameType::HvBatch:
    case FrameType::HvMigrate:
    case FrameType::HvMoveTo:
    case FrameType::HvReadState:
    case FrameType::HvStateWords:
    case FrameType::MpiStateCheck:
    case FrameType::MpiStateConfirm:
    case FrameType::ModuleHead:
    case FrameType::ModuleChunk:
    case FrameType::MpiRequestToSend:
    case FrameType::MpiClearToSend:
    case FrameType::MpiRendezvousData:
    case FrameType::CheckpointVote:
    case FrameType::CheckpointDecision:
    case FrameType::CheckpointRecount:
    case FrameType::CheckpointWritten:
    case FrameType::CheckpointPartData:
    case FrameType::CheckpointCopy:
    case FrameType::CheckpointMirror:
    case FrameType::CheckpointForget:
    case FrameType::HvRunProgress:
    case FrameType::OmpCopyUpdate:
    case FrameType::OmpJoinUpdate:
    case FrameType::OmpRegionShare:
    case FrameType::OmpThreadHello:
    case FrameType::OmpReductionList:
    case FrameType::OmpSyncRequest:
    case FrameType::OmpSyncReply:
    case FrameType::OmpPthreadStart:
    case FrameType::MpiEagerGrant:
    case FrameType::MpiEagerCredit:
    case FrameType::MigrationStop:
    case FrameType::MigrationOutcome:
    case FrameType::RouteSwitch:
    case FrameType::RouteSwitchAnswer:
    case FrameType::RankMoveAnnounce:
    case FrameType::RankSectionAccept:
    case FrameType::RankSectionHead:
    case FrameType::RankSectionData:
    case FrameType::RankSectionLanded:
    case FrameType::RankMoveAbort:
    case FrameType::RankOutputTails:
    case FrameType::OutputMark:
    case FrameType::OutputHold:
      return true;
  }
  return false;
}

const char* frameTypeName(FrameType type) {
  switch (type) {
    case FrameType::Hello:
      return "Hello";
    case FrameType::HelloAck:
      return "HelloAck";
    case FrameType::HelloRefused:
      return "HelloRefused";
    case FrameType::Ping:
      return "Ping";
    case FrameType::Pong:
      return "Pong";
    case FrameType::RunJob:
      return "RunJob";
    case FrameType::ModuleWanted:
      return "ModuleWanted";
    case FrameType::JobOutput:
      return "JobOutput";
    case FrameType::JobExit:
      return "JobExit";
    case FrameType::JobRefused:
      return "JobRefused";
    case FrameType::MpiHello:
      return "MpiHello";
    case FrameType::MpiMessage:
      return "MpiMessage";
    case FrameType::MpiMatched:
      return "MpiMatched";
    case FrameType::MpiAbort:
      return "MpiAbort";
    case FrameType::MpiRma:
      return "MpiRma";
    case FrameType::MpiRmaDone:
      return "MpiRmaDone";
    case FrameType::MpiMessageHead:
      return "MpiMessageHead";
    case FrameType::MpiMessagePart:
      return "MpiMessagePart";
    case FrameType::MpiHostState:
      return "MpiHostState";
    case FrameType::HvHello:
      return "HvHello";
    case FrameType::HvWelcome:
      return "HvWelcome";
    case FrameType::HvSubmitEngine:
      return "HvSubmitEngine";
    case FrameType::HvEngineReady:
      return "HvEngineReady";
    case FrameType::HvGetState:
      return "HvGetState";
    case FrameType::HvStateWord:
      return "HvStateWord";
    case FrameType::HvSetState:
      return "HvSetState";
    case FrameType::HvEvaluate:
      return "HvEvaluate";
    case FrameType::HvEvaluated:
      return "HvEvaluated";
    case FrameType::HvResume:
      return "HvResume";
    case FrameType::HvUpdate:
      return "HvUpdate";
    case FrameType::HvThereAreUpdates:
      return "HvThereAreUpdates";
    case FrameType::HvFlag:
      return "HvFlag";
    case FrameType::HvOpenLoop:
      return "HvOpenLoop";
    case FrameType::HvOpenLooped:
      return "HvOpenLooped";
    case FrameType::HvFinalize:
      return "HvFinalize";
    case FrameType::HvDone:
      return "HvDone";
    case FrameType::HvRefused:
      return "HvRefused";
    case FrameType::HvStatus:
      return "HvStatus";
    case FrameType::HvStatusReport:
      return "HvStatusReport";
    case FrameType::HvMigrate:
      return "HvMigrate";
    case FrameType::HvMoveTo:
      return "HvMoveTo";
    case FrameType::HvBatch:
      return "HvBatch";
    case FrameType::HvReadState:
      return "HvReadState";
    case FrameType::HvStateWords:
      return "HvStateWords";
    case FrameType::MpiStateCheck:
      return "MpiStateCheck";
    case FrameType::MpiStateConfirm:
      return "MpiStateConfirm";
    case FrameType::ModuleHead:
      return "ModuleHead";
    case FrameType::ModuleChunk:
      return "ModuleChunk";
    case FrameType::MpiRequestToSend:
      return "MpiRequestToSend";
    case FrameType::MpiClearToSend:
      return "MpiClearToSend";
    case FrameType::MpiRendezvousData:
      return "MpiRendezvousData";
    case FrameType::CheckpointVote:
      return "CheckpointVote";
    case FrameType::CheckpointDecision:
      return "CheckpointDecision";
    case FrameType::CheckpointRecount:
      return "CheckpointRecount";
    case FrameType::CheckpointWritten:
      return "CheckpointWritten";
    case FrameType::CheckpointPartData:
      return "CheckpointPartData";
    case FrameType::CheckpointCopy:
      return "CheckpointCopy";
    case FrameType::CheckpointMirror:
      return "CheckpointMirror";
    case FrameType::CheckpointForget:
      return "CheckpointForget";
    case FrameType::HvRunProgress:
      return "HvRunProgress";
    case FrameType::OmpCopyUpdate:
      return "OmpCopyUpdate";
    case FrameType::OmpJoinUpdate:
      return "OmpJoinUpdate";
    case FrameType::OmpRegionShare:
      return "OmpRegionShare";
    case FrameType::OmpThreadHello:
      return "OmpThreadHello";
    case FrameType::OmpReductionList:
      return "OmpReductionList";
    case FrameType::OmpSyncRequest:
      return "OmpSyncRequest";
    case FrameType::OmpSyncReply:
      return "OmpSyncReply";
    case FrameType::OmpPthreadStart:
      return "OmpPthreadStart";
    case FrameType::MpiEagerGrant:
      return "MpiEagerGrant";
    case FrameType::MpiEagerCredit:
      return "MpiEagerCredit";
    case FrameType::MigrationStop:
      return "MigrationStop";
    case FrameType::MigrationOutcome:
      return "MigrationOutcome";
    case FrameType::RouteSwitch:
      return "RouteSwitch";
    case FrameType::RouteSwitchAnswer:
      return "RouteSwitchAnswer";
    case FrameType::RankMoveAnnounce:
      return "RankMoveAnnounce";
    case FrameType::RankSectionAccept:
      return "RankSectionAccept";
    case FrameType::RankSectionHead:
      return "RankSectionHead";
    case FrameType::RankSectionData:
      return "RankSectionData";
    case FrameType::RankSectionLanded:
      return "RankSectionLanded";
    case FrameType::RankMoveAbort:
      return "RankMoveAbort";
    case FrameType::RankOutputTails:
      return "RankOutputTails";
    case FrameType::OutputMark:
      return "OutputMark";
    case FrameType::OutputHold:
      return "OutputHold";
  }
  return "unknown";
}

FrameHeaderBytes encodeFrameHeader(FrameType type, uint64_t payloadBytes) {
  assert(payloadBytes <= maxPayloadBytes(type) && "frame payload over its type's maximum");
  FrameHeaderBytes bytes{};
  std::memcpy(bytes.data(), kFrameMagic.data(), kFrameMagic.size());
  util::writeLittleEndian(bytes.data() + 4, static_cast<uint16_t>(type), 2);
  util::writeLittleEndian(bytes.data() + 8, payloadBytes, 8);
  return bytes;
}

bool decodeFrameHeader(const FrameHeaderBytes& bytes, FrameHeader& header, std::string& reason) {
  if (std::memcmp(bytes.data(), kFrameMagic.data(), kFrameMagic.size()) != 0) {
    reason = "bad frame magic (not a Synergy peer)";
    return false;
  }
  uint16_t rawType = uint16_t(util::readLittleEndian(bytes.data() + 4, 2));
  if (!isKnownFrameType(rawType)) {
    reason = "unknown frame type " + std::to_string(rawType);
    return false;
  }
  if (util::readLittleEndian(bytes.data() + 6, 2) != 0) {
    reason = "nonzero reserved field in frame header";
    return false;
  }
  header.type = static_cast<FrameType>(rawType);
  header.payloadBytes = util::readLittleEndian(bytes.data() + 8, 8);
  uint64_t limit = maxPayloadBytes(header.type);
  if (header.payloadBytes > limit) {
    reason = "frame length " + std::to_string(header.payloadBytes) + " exceeds the maximum " +
             std::to_string(limit) + " for " + frameTypeName(header.type);
    return false;
  }
  return true;
}

}  // namespace synergy::transport
