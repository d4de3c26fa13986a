// The accelerated SHA-256 must give libsodium's digest for every input: the IR and plan hashes
// are compared across processes (run, helper, verify) and machines.
#include <QtTest>

#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "engine/ir.h"
#include "engine/sha256.h"

using namespace paddock;

class Sha256Test : public QObject {
  Q_OBJECT
 private slots:
  void the_digest_equals_libsodiums_for_every_length_and_offset() {
    std::printf("SHA-256 uses the CPU's SHA extensions here: %s\n", sha256_uses_cpu_extensions() ? "yes" : "no");
    std::mt19937 rng(12345);
    std::vector<unsigned char> buf(4096 + 16);
    for (auto& b : buf) b = static_cast<unsigned char>(rng());
    std::vector<std::size_t> sizes;
    for (std::size_t n = 0; n <= 300; ++n) sizes.push_back(n);  // every tail: 0..63, 55/56/64 edges
    for (std::size_t n : {511u, 512u, 1000u, 1023u, 1024u, 4095u, 4096u}) sizes.push_back(n);
    for (std::size_t n : sizes)
      for (std::size_t offset : {0u, 1u, 7u}) {  // unaligned input too
        unsigned char want[kSha256Bytes], got[kSha256Bytes];
        sha256_portable(buf.data() + offset, n, want);
        sha256(buf.data() + offset, n, got);
        QVERIFY2(std::memcmp(want, got, kSha256Bytes) == 0,
                 ("length " + std::to_string(n) + " offset " + std::to_string(offset)).c_str());
      }
  }

  void known_vectors() {
    QCOMPARE(sha256_hex(""), std::string("sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
    QCOMPARE(sha256_hex("abc"), std::string("sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
    QCOMPARE(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
             std::string("sha256:248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"));
    QCOMPARE(sha256_hex(std::string(1000000, 'a')),
             std::string("sha256:cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"));
  }
};

QTEST_APPLESS_MAIN(Sha256Test)
#include "sha256_test.moc"
