//===- transport_pingpong.cpp - Loopback ping-pong over candidate libraries -===//
//
// Measures round-trip latency and bandwidth of the messaging libraries that
// runtime/transport could be built on: asio TCP with our own length-prefixed
// framing, ZeroMQ PAIR sockets and NNG pair1 sockets. Each library runs a
// ping-pong between two threads of this process over 127.0.0.1 for message
// sizes 8 B..4 MiB. The echo side and the timing side both copy the message
// into their own buffer, as a transport delivering frames would.
//
//   transport_pingpong LIBRARY SIZE ITERATIONS
//
// prints one line "LIBRARY SIZE median_round_trip_us"; bench/cluster/run.py
// drives it and chooses.
//
//===----------------------------------------------------------------------===//
#include <algorithm>
#include <asio.hpp>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <nng/nng.h>
#include <nng/protocol/pair1/pair.h>
#include <string>
#include <thread>
#include <vector>
#include <zmq.h>

using Clock = std::chrono::steady_clock;

namespace {

constexpr int kWarmupRounds = 20;

// Median of the per-round trip times, in microseconds.
double medianMicros(std::vector<double>& samples) {
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

double asioPingPong(size_t size, int iterations) {
  asio::io_context context;
  asio::ip::tcp::acceptor acceptor(context, {asio::ip::make_address("127.0.0.1"), 0});
  unsigned short port = acceptor.local_endpoint().port();
  std::thread echo([&] {
    asio::ip::tcp::socket socket = acceptor.accept();
    socket.set_option(asio::ip::tcp::no_delay(true));
    std::vector<char> buffer(size);
    for (int i = 0; i < kWarmupRounds + iterations; ++i) {
      uint64_t length = 0;
      asio::read(socket, asio::buffer(&length, sizeof length));
      asio::read(socket, asio::buffer(buffer.data(), length));
      std::array<asio::const_buffer, 2> frame{asio::buffer(&length, sizeof length),
                                              asio::buffer(buffer.data(), length)};
      asio::write(socket, frame);
    }
  });
  asio::ip::tcp::socket socket(context);
  socket.connect({asio::ip::make_address("127.0.0.1"), port});
  socket.set_option(asio::ip::tcp::no_delay(true));
  std::vector<char> message(size, 'x'), reply(size);
  std::vector<double> samples;
  for (int i = 0; i < kWarmupRounds + iterations; ++i) {
    auto start = Clock::now();
    uint64_t length = size;
    std::array<asio::const_buffer, 2> frame{asio::buffer(&length, sizeof length),
                                            asio::buffer(message)};
    asio::write(socket, frame);
    asio::read(socket, asio::buffer(&length, sizeof length));
    asio::read(socket, asio::buffer(reply.data(), length));
    if (i >= kWarmupRounds)
      samples.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
  }
  echo.join();
  return medianMicros(samples);
}

double zmqPingPong(size_t size, int iterations) {
  void* context = zmq_ctx_new();
  void* server = zmq_socket(context, ZMQ_PAIR);
  zmq_bind(server, "tcp://127.0.0.1:*");
  char endpoint[256];
  size_t endpointSize = sizeof endpoint;
  zmq_getsockopt(server, ZMQ_LAST_ENDPOINT, endpoint, &endpointSize);
  std::thread echo([&] {
    std::vector<char> buffer(size);
    for (int i = 0; i < kWarmupRounds + iterations; ++i) {
      int received = zmq_recv(server, buffer.data(), size, 0);
      zmq_send(server, buffer.data(), received, 0);
    }
  });
  void* client = zmq_socket(context, ZMQ_PAIR);
  zmq_connect(client, endpoint);
  std::vector<char> message(size, 'x'), reply(size);
  std::vector<double> samples;
  for (int i = 0; i < kWarmupRounds + iterations; ++i) {
    auto start = Clock::now();
    zmq_send(client, message.data(), size, 0);
    zmq_recv(client, reply.data(), size, 0);
    if (i >= kWarmupRounds)
      samples.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
  }
  echo.join();
  zmq_close(client);
  zmq_close(server);
  zmq_ctx_term(context);
  return medianMicros(samples);
}

double nngPingPong(size_t size, int iterations) {
  nng_socket server, client;
  nng_pair1_open(&server);
  nng_setopt_size(server, NNG_OPT_RECVMAXSZ, size + 64);
  nng_listener listener;
  nng_listen(server, "tcp://127.0.0.1:0", &listener, 0);
  int port = 0;
  nng_listener_get_int(listener, NNG_OPT_TCP_BOUND_PORT, &port);
  std::thread echo([&] {
    std::vector<char> buffer(size);
    for (int i = 0; i < kWarmupRounds + iterations; ++i) {
      size_t received = size;
      nng_recv(server, buffer.data(), &received, 0);
      nng_send(server, buffer.data(), received, 0);
    }
  });
  nng_pair1_open(&client);
  nng_setopt_size(client, NNG_OPT_RECVMAXSZ, size + 64);
  std::string url = "tcp://127.0.0.1:" + std::to_string(port);
  nng_dial(client, url.c_str(), nullptr, 0);
  std::vector<char> message(size, 'x'), reply(size);
  std::vector<double> samples;
  for (int i = 0; i < kWarmupRounds + iterations; ++i) {
    auto start = Clock::now();
    nng_send(client, message.data(), size, 0);
    size_t received = size;
    nng_recv(client, reply.data(), &received, 0);
    if (i >= kWarmupRounds)
      samples.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
  }
  echo.join();
  nng_close(client);
  nng_close(server);
  return medianMicros(samples);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: transport_pingpong asio|zmq|nng SIZE ITERATIONS\n");
    return 2;
  }
  std::string library = argv[1];
  size_t size = std::strtoull(argv[2], nullptr, 10);
  int iterations = std::atoi(argv[3]);
  if (size == 0 || size > (64u << 20) || iterations <= 0) {
    std::fprintf(stderr, "transport_pingpong: error: SIZE must be 1..64 MiB, ITERATIONS positive\n");
    return 2;
  }
  double micros;
  if (library == "asio")
    micros = asioPingPong(size, iterations);
  else if (library == "zmq")
    micros = zmqPingPong(size, iterations);
  else if (library == "nng")
    micros = nngPingPong(size, iterations);
  else {
    std::fprintf(stderr, "transport_pingpong: error: unknown library '%s'\n", library.c_str());
    return 2;
  }
  std::printf("%s %zu %.3f\n", library.c_str(), size, micros);
  return 0;
}
