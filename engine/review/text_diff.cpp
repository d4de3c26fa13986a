#include "engine/review/text_diff.h"

#include <algorithm>
#include <unordered_map>

namespace paddock::review {
namespace {

std::vector<std::string_view> split_lines(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t at = 0;
  while (at < s.size()) {
    const std::size_t nl = s.find('\n', at);
    if (nl == std::string_view::npos) {
      out.push_back(s.substr(at));
      break;
    }
    out.push_back(s.substr(at, nl - at));
    at = nl + 1;
  }
  return out;
}

// The edit script as one op per line of either side: ' ' both, '-' old only, '+' new only.
// Myers' greedy algorithm, keeping each round's frontier to walk back; false past max_edits.
bool edit_script(const std::vector<int>& a, const std::vector<int>& b, int max_edits, std::vector<char>& ops) {
  const int n = static_cast<int>(a.size()), m = static_cast<int>(b.size());
  const int max = std::min(n + m, max_edits);
  std::vector<std::vector<int>> trace;
  std::vector<int> v(2 * static_cast<std::size_t>(max) + 2, 0);
  const int off = max + 1;
  int found = -1;
  for (int d = 0; d <= max && found < 0; ++d) {
    for (int k = -d; k <= d; k += 2) {
      int x = (k == -d || (k != d && v[off + k - 1] < v[off + k + 1])) ? v[off + k + 1] : v[off + k - 1] + 1;
      int y = x - k;
      while (x < n && y < m && a[x] == b[y]) ++x, ++y;
      v[off + k] = x;
      if (x >= n && y >= m) {
        found = d;
        break;
      }
    }
    trace.emplace_back(v.begin() + (off - d - 1), v.begin() + (off + d + 2));
  }
  if (found < 0) return false;
  // Walk back from (n, m).
  int x = n, y = m;
  std::vector<char> rev;
  for (int d = found; d > 0; --d) {
    const std::vector<int>& pv = trace[d - 1];  // frontier after round d-1, indices -(d)..d
    const auto at = [&](int k) { return pv[k + d]; };
    const int k = x - y;
    const bool down = k == -d || (k != d && at(k - 1) < at(k + 1));
    const int pk = down ? k + 1 : k - 1;
    const int px = at(pk), py = px - pk;
    while (x > px + (down ? 0 : 1) && y > py + (down ? 1 : 0)) {
      rev.push_back(' ');
      --x, --y;
    }
    rev.push_back(down ? '+' : '-');
    x = px, y = py;
  }
  while (x > 0 && y > 0) {
    rev.push_back(' ');
    --x, --y;
  }
  ops.assign(rev.rbegin(), rev.rend());
  return true;
}

}  // namespace

bool looks_binary(std::string_view head) { return head.substr(0, 8000).find('\0') != std::string_view::npos; }

TextDiff diff_lines(std::string_view before, std::string_view after, int context, int max_edits) {
  TextDiff out;
  const auto la = split_lines(before), lb = split_lines(after);
  // Lines as numbers: equal lines, equal numbers.
  std::unordered_map<std::string_view, int> ids;
  std::vector<int> a, b;
  for (auto l : la) a.push_back(ids.emplace(l, static_cast<int>(ids.size())).first->second);
  for (auto l : lb) b.push_back(ids.emplace(l, static_cast<int>(ids.size())).first->second);
  // The common head and tail need no search.
  std::size_t head = 0;
  while (head < a.size() && head < b.size() && a[head] == b[head]) ++head;
  std::size_t tail = 0;
  while (tail < a.size() - head && tail < b.size() - head && a[a.size() - 1 - tail] == b[b.size() - 1 - tail]) ++tail;
  std::vector<int> ma(a.begin() + static_cast<long>(head), a.end() - static_cast<long>(tail));
  std::vector<int> mb(b.begin() + static_cast<long>(head), b.end() - static_cast<long>(tail));
  std::vector<char> mid;
  if (!edit_script(ma, mb, max_edits, mid)) {
    out.too_large = true;
    return out;
  }
  std::vector<char> ops(head, ' ');
  ops.insert(ops.end(), mid.begin(), mid.end());
  ops.insert(ops.end(), tail, ' ');
  // Group into hunks: each change with `context` lines around it; close groups merge.
  struct Op {
    char op;
    int ai, bi;  // 0-based line in a (for ' ' and '-') and in b (for ' ' and '+')
  };
  std::vector<Op> seq;
  int ai = 0, bi = 0;
  for (char c : ops) {
    seq.push_back({c, ai, bi});
    if (c != '+') ++ai;
    if (c != '-') ++bi;
    if (c == '+') ++out.added;
    if (c == '-') ++out.removed;
  }
  std::size_t i = 0;
  while (i < seq.size()) {
    while (i < seq.size() && seq[i].op == ' ') ++i;
    if (i == seq.size()) break;
    std::size_t start = i >= static_cast<std::size_t>(context) ? i - context : 0;
    std::size_t end = i;
    // Extend while the next change is within 2*context of the last one.
    for (std::size_t j = i; j < seq.size(); ++j) {
      if (seq[j].op != ' ') end = j;
      else if (j - end > static_cast<std::size_t>(2 * context)) break;
    }
    const std::size_t stop = std::min(seq.size(), end + 1 + context);
    DiffHunk h;
    h.old_start = seq[start].ai + 1;
    h.new_start = seq[start].bi + 1;
    for (std::size_t j = start; j < stop; ++j) {
      const Op& o = seq[j];
      DiffLine l;
      l.op = o.op;
      l.text = std::string(o.op == '+' ? lb[o.bi] : la[o.ai]);
      if (o.op != '+') ++h.old_count;
      if (o.op != '-') ++h.new_count;
      h.lines.push_back(std::move(l));
    }
    // An empty side starts at the line before it, as diff -u writes it.
    if (h.old_count == 0) --h.old_start;
    if (h.new_count == 0) --h.new_start;
    out.hunks.push_back(std::move(h));
    i = stop;
  }
  return out;
}

std::string unified(const TextDiff& d, const std::string& before_name, const std::string& after_name) {
  if (d.hunks.empty()) return "";
  std::string out = "--- " + before_name + "\n+++ " + after_name + "\n";
  for (const auto& h : d.hunks) {
    out += "@@ -" + std::to_string(h.old_start) + "," + std::to_string(h.old_count) + " +" +
           std::to_string(h.new_start) + "," + std::to_string(h.new_count) + " @@\n";
    for (const auto& l : h.lines) out += std::string(1, l.op) + l.text + "\n";
  }
  return out;
}

}  // namespace paddock::review
