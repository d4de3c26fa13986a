#include "engine/review/git_object.h"

#include <zlib.h>

namespace paddock::review {

bool is_object_id(std::string_view s) {
  if (s.size() != 40 && s.size() != 64) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

std::string ref_file_id(std::string_view content) {
  while (!content.empty() && (content.back() == '\n' || content.back() == '\r')) content.remove_suffix(1);
  return is_object_id(content) ? std::string(content) : std::string();
}

Result<GitObject> inflate_loose_object(std::string_view deflated, std::size_t max_body) {
  z_stream z{};
  if (inflateInit(&z) != Z_OK) return internal_error("git object: zlib cannot start");
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(deflated.data()));
  z.avail_in = static_cast<uInt>(deflated.size());
  std::string out;
  const std::size_t limit = max_body + 64;  // the header is at most "commit 18446744073709551615\0"
  char buf[16384];
  int rc = Z_OK;
  while (rc == Z_OK) {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof buf;
    rc = inflate(&z, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) break;
    out.append(buf, sizeof buf - z.avail_out);
    if (out.size() > limit) {
      inflateEnd(&z);
      return bad_input("git object: larger than " + std::to_string(max_body) + " bytes");
    }
    if (rc == Z_OK && z.avail_in == 0 && z.avail_out != 0) break;  // input ended before the stream did
  }
  inflateEnd(&z);
  if (rc != Z_STREAM_END) return bad_input("git object: not a complete zlib stream");
  const std::size_t nul = out.find('\0');
  const std::size_t space = out.find(' ');
  if (nul == std::string::npos || space == std::string::npos || space > nul) return bad_input("git object: no header");
  GitObject o;
  o.type = out.substr(0, space);
  const std::string size_text = out.substr(space + 1, nul - space - 1);
  if (size_text.empty() || size_text.size() > 19 || size_text.find_first_not_of("0123456789") != std::string::npos)
    return bad_input("git object: a malformed size");
  if (std::stoull(size_text) != out.size() - nul - 1) return bad_input("git object: its size does not match its content");
  o.body = out.substr(nul + 1);
  return o;
}

Result<CommitInfo> parse_commit(std::string_view body) {
  CommitInfo c;
  std::size_t at = 0;
  bool tree = false;
  // Header lines until the first empty line; continuation lines (a signature) start with a space.
  while (at < body.size()) {
    const std::size_t nl = body.find('\n', at);
    const std::string_view line = body.substr(at, nl == std::string_view::npos ? std::string_view::npos : nl - at);
    at = nl == std::string_view::npos ? body.size() : nl + 1;
    if (line.empty()) break;
    if (line.rfind("tree ", 0) == 0) tree = is_object_id(line.substr(5));
    if (line.rfind("parent ", 0) == 0) {
      if (!is_object_id(line.substr(7))) return bad_input("git commit: a malformed parent");
      c.parents.emplace_back(line.substr(7));
    }
  }
  if (!tree) return bad_input("git commit: no tree");
  const std::size_t nl = body.find('\n', at);
  c.subject = std::string(body.substr(at, nl == std::string_view::npos ? std::string_view::npos : nl - at));
  return c;
}

}  // namespace paddock::review
