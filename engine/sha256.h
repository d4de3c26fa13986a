// SHA-256 for the IR, plan and layer hashes. Every `paddock run` hashes ~30 KB before the helper
// starts and the helper hashes most of it again (issue 5); libsodium's portable SHA-256 took
// ~0.17 ms of that here. Where the CPU has the SHA extensions (x86-64 SHA-NI) the blocks are
// compressed with them; elsewhere libsodium computes the digest. Both give the same digest
// (tests/engine/sha256_test compares them on every length up to several blocks).
#pragma once

#include <cstddef>

namespace paddock {

inline constexpr std::size_t kSha256Bytes = 32;

void sha256(const unsigned char* data, std::size_t size, unsigned char out[kSha256Bytes]);
// Whether sha256() uses the CPU's SHA instructions on this machine (tests report it).
bool sha256_uses_cpu_extensions();
// libsodium's digest, always: the reference the accelerated path is tested against.
void sha256_portable(const unsigned char* data, std::size_t size, unsigned char out[kSha256Bytes]);

}  // namespace paddock
