#include "engine/sha256.h"

#include <sodium.h>

#include <cstdint>
#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <immintrin.h>
#define PADDOCK_SHA_NI 1
#endif

namespace paddock {

void sha256_portable(const unsigned char* data, std::size_t size, unsigned char out[kSha256Bytes]) {
  // libsodium asks for sodium_init() before any call; the hash itself does not depend on it (its
  // only failure, no randomness source, is no reason to refuse a digest).
  [[maybe_unused]] const int init = sodium_init();
  crypto_hash_sha256(out, data, size);
}

#ifdef PADDOCK_SHA_NI
namespace {

// FIPS 180-4 round constants.
alignas(16) constexpr std::uint32_t kRound[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

// Two CPUID leaves (each traps to the hypervisor in a VM, ~7 us here): the highest leaf, then
// leaf 7's SHA bit. Every CPU with the SHA extensions also has the SSSE3 and SSE4.1 instructions
// compress_ni() uses (and a CPUID mask cannot take instructions away), so they are not asked.
bool cpu_has_sha() {
  if (__get_cpuid_max(0, nullptr) < 7) return false;
  unsigned a = 0, b = 0, c = 0, d = 0;
  __cpuid_count(7, 0, a, b, c, d);
  return (b & (1u << 29)) != 0;
}

// Compresses `blocks` 64-byte blocks into state (a..h). The SHA instructions keep the state as
// two vectors, ABEF and CDGH; each sha256rnds2 does two rounds, so four rounds take two calls
// with the upper half of the same four round inputs moved down in between.
__attribute__((target("sha,sse4.1,ssse3"))) void compress_ni(std::uint32_t state[8], const unsigned char* data,
                                                                std::size_t blocks) {
  const __m128i byteswap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
  __m128i dcba = _mm_loadu_si128(reinterpret_cast<const __m128i*>(&state[0]));
  __m128i hgfe = _mm_loadu_si128(reinterpret_cast<const __m128i*>(&state[4]));
  const __m128i cdab = _mm_shuffle_epi32(dcba, 0xB1);
  const __m128i efgh = _mm_shuffle_epi32(hgfe, 0x1B);
  __m128i abef = _mm_alignr_epi8(cdab, efgh, 8);
  __m128i cdgh = _mm_blend_epi16(efgh, cdab, 0xF0);
  for (; blocks > 0; --blocks, data += 64) {
    const __m128i abef_in = abef, cdgh_in = cdgh;
    __m128i w[4];  // the last four groups of four message words
    for (int g = 0; g < 16; ++g) {
      __m128i m;
      if (g < 4) {
        m = _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(data + 16 * g)), byteswap);
      } else {
        // W[t] = σ1(W[t-2]) + W[t-7] + σ0(W[t-15]) + W[t-16], four words at a time.
        m = _mm_sha256msg1_epu32(w[g % 4], w[(g + 1) % 4]);
        m = _mm_add_epi32(m, _mm_alignr_epi8(w[(g + 3) % 4], w[(g + 2) % 4], 4));
        m = _mm_sha256msg2_epu32(m, w[(g + 3) % 4]);
      }
      w[g % 4] = m;
      __m128i k = _mm_add_epi32(m, _mm_load_si128(reinterpret_cast<const __m128i*>(&kRound[4 * g])));
      cdgh = _mm_sha256rnds2_epu32(cdgh, abef, k);
      k = _mm_shuffle_epi32(k, 0x0E);
      abef = _mm_sha256rnds2_epu32(abef, cdgh, k);
    }
    abef = _mm_add_epi32(abef, abef_in);
    cdgh = _mm_add_epi32(cdgh, cdgh_in);
  }
  const __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
  const __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
  dcba = _mm_blend_epi16(feba, dchg, 0xF0);
  hgfe = _mm_alignr_epi8(dchg, feba, 8);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(&state[0]), dcba);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(&state[4]), hgfe);
}

void sha256_ni(const unsigned char* data, std::size_t size, unsigned char out[kSha256Bytes]) {
  std::uint32_t state[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                            0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  const std::size_t full = size / 64;
  compress_ni(state, data, full);
  // The tail, the 0x80 marker and the message length in bits (big-endian) fill one or two blocks.
  unsigned char last[128] = {};
  const std::size_t rest = size - full * 64;
  if (rest) std::memcpy(last, data + full * 64, rest);
  last[rest] = 0x80;
  const std::size_t tail_blocks = rest < 56 ? 1 : 2;
  const std::uint64_t bits = static_cast<std::uint64_t>(size) * 8;
  for (int i = 0; i < 8; ++i) last[tail_blocks * 64 - 1 - i] = static_cast<unsigned char>(bits >> (8 * i));
  compress_ni(state, last, tail_blocks);
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 4; ++j) out[4 * i + j] = static_cast<unsigned char>(state[i] >> (24 - 8 * j));
}

}  // namespace

bool sha256_uses_cpu_extensions() {
  static const bool have = cpu_has_sha();  // CPUID once: in a VM each one traps to the host
  return have;
}

void sha256(const unsigned char* data, std::size_t size, unsigned char out[kSha256Bytes]) {
  if (sha256_uses_cpu_extensions()) sha256_ni(data, size, out);
  else sha256_portable(data, size, out);
}
#else
bool sha256_uses_cpu_extensions() { return false; }

void sha256(const unsigned char* data, std::size_t size, unsigned char out[kSha256Bytes]) {
  sha256_portable(data, size, out);
}
#endif

}  // namespace paddock
