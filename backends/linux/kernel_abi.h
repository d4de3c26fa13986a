// The Linux ABI numbers the plan compiler writes into a plan (errno values a seccomp rule
// answers with, clone flags and ioctl requests it matches), spelled once. Backends compile on
// every OS and include no Linux headers, so the values are written out here; the helper's
// tests compare each one with the kernel's headers (tests/helpers/linux/kernel_abi_test.cpp).
#pragma once

#include <cstdint>

namespace paddock::linux_backend::abi {

// errno values (Linux generic ABI).
inline constexpr int kEperm = 1;
inline constexpr int kEacces = 13;
inline constexpr int kEnosys = 38;
inline constexpr int kEprotonosupport = 93;
inline constexpr int kEsocktnosupport = 94;
inline constexpr int kEafnosupport = 97;

// clone(2) flags that create a namespace.
inline constexpr std::uint64_t kCloneNewns = 0x00020000;
inline constexpr std::uint64_t kCloneNewcgroup = 0x02000000;
inline constexpr std::uint64_t kCloneNewuts = 0x04000000;
inline constexpr std::uint64_t kCloneNewipc = 0x08000000;
inline constexpr std::uint64_t kCloneNewuser = 0x10000000;
inline constexpr std::uint64_t kCloneNewpid = 0x20000000;
inline constexpr std::uint64_t kCloneNewnet = 0x40000000;
inline constexpr std::uint64_t kNamespaceCloneFlags[] = {kCloneNewns,   kCloneNewcgroup, kCloneNewuts, kCloneNewipc,
                                                         kCloneNewuser, kCloneNewpid,    kCloneNewnet};

// socket(2)'s type argument: the type is its low four bits (the rest are SOCK_NONBLOCK and
// SOCK_CLOEXEC); the one type the landlock tier's filtered network lets through.
inline constexpr std::uint64_t kSockTypeMask = 0xF;
inline constexpr std::uint64_t kSockStream = 1;
// IPPROTO_TCP: with 0 (the family's default), the only protocol of a stream socket let through
// (SCTP's and MPTCP's have ways to connect other than connect(2)).
inline constexpr std::uint64_t kIpprotoTcp = 6;
// send flags: MSG_FASTOPEN connects an unconnected TCP socket as it sends.
inline constexpr std::uint64_t kMsgFastopen = 0x20000000;

// Terminal ioctls that push input into another process's terminal or drive the console.
inline constexpr std::uint64_t kTiocsti = 0x5412;
inline constexpr std::uint64_t kTioclinux = 0x541C;

}  // namespace paddock::linux_backend::abi
