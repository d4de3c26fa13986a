// The Linux ABI numbers the plan compiler writes into a plan (errno values a seccomp rule
// answers with, clone flags and ioctl requests it matches), spelled once. Backends compile on
// every OS and include no Linux headers, so the values are written out here; the helper's
// tests compare each one with the kernel's headers (tests/helpers/linux/kernel_abi_test.cpp).
#pragma once

#include <cstdint>

namespace paddock::linux_backend::abi {

// errno values (Linux generic ABI).
inline constexpr int kEperm = 1;
inline constexpr int kEnosys = 38;
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

// Terminal ioctls that push input into another process's terminal or drive the console.
inline constexpr std::uint64_t kTiocsti = 0x5412;
inline constexpr std::uint64_t kTioclinux = 0x541C;

}  // namespace paddock::linux_backend::abi
