// Git's loose objects, read from their bytes (zlib-deflated "<type> <size>\0<content>") and
// commits parsed from their text, so that review mode can show the commits an agent made and check
// that the branch it moved is a fast-forward of the user's, without running git on a repository
// the agent could write (docs/review.md).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "engine/status.h"

namespace paddock::review {

struct GitObject {
  std::string type;  // commit, tree, blob, tag
  std::string body;
};

// Inflates one loose object; an object larger than max_body bytes, or bytes that do not inflate to
// "<type> <size>\0" and exactly size bytes, are an error.
Result<GitObject> inflate_loose_object(std::string_view deflated, std::size_t max_body = std::size_t{16} << 20);

struct CommitInfo {
  std::vector<std::string> parents;  // object ids
  std::string subject;               // the message's first line
};

Result<CommitInfo> parse_commit(std::string_view body);

// 40 (SHA-1) or 64 (SHA-256) lowercase hex digits.
bool is_object_id(std::string_view s);

// A ref file's content: an object id and a newline, or "ref: <name>" for a symbolic ref. Returns
// the id ("" for a symbolic ref or anything else).
std::string ref_file_id(std::string_view content);

}  // namespace paddock::review
