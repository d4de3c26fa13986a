#include "session_monitor.h"

#include <algorithm>
#include <optional>
#include <tuple>
#include <type_traits>

#include <QFileInfo>
#include <QFutureWatcher>
#include <QtConcurrent>

#include "app_paths.h"
#include "engine/session/event.h"
#include "platform/sessions.h"

namespace paddock::gui {
namespace {

using session::EventType;

// The event's type, when the line names a known one.
std::optional<EventType> type_of(const QJsonObject& ev) {
  return session::parse_event_type(ev.value("event").toString().toStdString());
}

// Everything an event says beyond the columns, as "key=value" in key order (and its taint).
QString rest_of(const session::Event& e, std::initializer_list<const char*> shown) {
  QStringList parts;
  for (const auto& [key, v] : e.fields.items()) {
    if (std::any_of(shown.begin(), shown.end(), [&](const char* k) { return key == k; })) continue;
    const std::string text = v.is_string() ? v.get<std::string>() : v.dump();
    parts << QString::fromStdString(key) + "=" + QString::fromStdString(text);
  }
  if (!e.taint.empty()) parts << "taint=" + QString::fromStdString(e.taint);
  return parts.join("  ");
}

// Where the last kTailBytes of a log start: the offset after the last newline before that point
// and the number of lines before it (-1 when there is no newline there).
struct TailStart {
  qint64 offset = -1;
  long lines = 0;
};

TailStart find_tail_start(const QString& path, qint64 tail_start) {
  TailStart out;
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return out;
  qint64 pos = 0;
  while (pos < tail_start) {
    const QByteArray block = f.read(std::min<qint64>(1 << 20, tail_start - pos));
    if (block.isEmpty()) break;
    for (qsizetype i = block.indexOf('\n'); i >= 0; i = block.indexOf('\n', i + 1)) {
      ++out.lines;
      out.offset = pos + i + 1;
    }
    pos += block.size();
  }
  return out;
}

}  // namespace

SessionMonitor::SessionMonitor(QObject* parent) : StatusListModel(parent) {
  connect(&client_, &ControlClient::connected, this, [this] {
    if (!keep_log_) poll_.stop();  // connected: the socket says everything from now on
    setLive(true);
  });
  connect(&client_, &ControlClient::message, this, &SessionMonitor::onMessage);
  connect(&client_, &ControlClient::closed, this, [this] {
    // Every read first, the signals last: a listener of liveChanged may reload the sessions list
    // and with it retire this monitor (docs/architecture.md, "The app's lifetimes").
    if (keep_log_) {
      readNewLines();  // the last events (session_ended) were written before the socket closed
      readOutput();
    }
    if (!keep_log_ || QFileInfo::exists(dir_ + "/report.json")) poll_.stop();  // ended: nothing more to read
    const bool had_asks = !asks_.empty();
    asks_.clear();  // the session is gone; so are its questions
    if (had_asks) emit pendingAsksChanged();
    setLive(false);
  });
  connect(&client_, &ControlClient::failed, this, [this](const QString& reason) {
    if (!(quiet_connect_ && !client_.isOpen())) setLastError(reason);
    if (!client_.isOpen()) setLive(false);
  });
  poll_.setInterval(1000);
  connect(&poll_, &QTimer::timeout, this, &SessionMonitor::onPoll);
}

void SessionMonitor::connectIfRunning(bool quiet) {
  if (dir_.isEmpty() || client_.isBusy()) return;
  const QString socket = AppPaths::controlSocketPath(dir_);
  if (!QFileInfo::exists(socket) || QFileInfo::exists(dir_ + "/report.json")) return;
  quiet_connect_ = quiet;
  client_.open(socket);
  client_.send(session::request_of(session::ControlCommand::kSubscribe));
}

void SessionMonitor::onPoll() {
  if (keep_log_) {
    readNewLines();
    readOutput();
  }
  connectIfRunning(/*quiet=*/true);
  // Ended without this monitor ever being connected (it ran and ended between two looks): the
  // last lines are read above, and there is nothing more to come.
  if (!client_.isBusy() && QFileInfo::exists(dir_ + "/report.json")) poll_.stop();
}

int SessionMonitor::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

QVariant SessionMonitor::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const Row& r = rows_[static_cast<size_t>(index.row())];
  switch (role) {
    case TimeRole: return r.time;
    case KindRole: return r.kind;
    case HostRole: return r.host;
    case PortRole: return r.port;
    case DecisionRole: return r.decision;
    case RuleRole: return r.rule;
    case IpRole: return r.ip;
    case BytesTxRole: return r.tx;
    case BytesRxRole: return r.rx;
    case TextRole: return r.text;
    case AlertRole: return r.alert;
    default: return {};
  }
}

QHash<int, QByteArray> SessionMonitor::roleNames() const {
  return {{TimeRole, "time"},         {KindRole, "kind"},       {HostRole, "host"},
          {PortRole, "port"},         {DecisionRole, "decision"}, {RuleRole, "rule"},
          {IpRole, "ip"},             {BytesTxRole, "bytesTx"}, {BytesRxRole, "bytesRx"},
          {TextRole, "text"},         {AlertRole, "alert"}};
}

QString SessionMonitor::sessionId() const { return dir_.isEmpty() ? QString() : QFileInfo(dir_).fileName(); }

QVariantList SessionMonitor::pendingAsks() const {
  QVariantList out;
  for (const Ask& a : asks_)
    out.push_back(QVariantMap{{"id", a.id}, {"host", a.host}, {"port", a.port}, {"raised", a.raised}});
  return out;
}

void SessionMonitor::setSessionDir(const QString& dir) {
  if (dir == dir_) return;
  dir_ = dir;
  emit sessionDirChanged();
  reload();
}

void SessionMonitor::reload() {
  client_.close();
  poll_.stop();
  file_.close();
  file_.setFileName({});  // never the previous session's log, if a line arrives before it is named
  ++generation_;
  scanning_ = false;
  clearLog();
  emit countChanged();
  asks_.clear();
  seen_asks_.clear();
  emit pendingAsksChanged();
  output_.clear();
  output_offset_ = 0;
  has_output_ = false;
  dropped_ = 0;
  emit outputChanged();
  setLive(false);
  setLastError({});
  if (dir_.isEmpty()) {
    setStatus(ModelStatus::None);
    return;
  }
  setStatus(ModelStatus::Loading);
  if (auto ir = platform::read_session_ir(QFile::encodeName(dir_).toStdString()); ir.ok()) {
    ask_timeout_secs_ = ir->egress.ask_timeout_secs;
    emit sessionDirChanged();
  }
  // The log is named before subscribing: a session that ends as the subscription is sent closes
  // the socket at once, and the slot that follows reads the log there and then.
  if (keep_log_) file_.setFileName(dir_ + "/events.jsonl");
  // Subscribe before the first read: the subscription then sees every event the read misses.
  connectIfRunning(/*quiet=*/false);
  if (keep_log_) {
    readNewLines();
    readOutput();
  }
  // Only a session that may still write (or whose socket is not up yet) needs a look now and then.
  if (!QFileInfo::exists(dir_ + "/report.json")) poll_.start();
  if (!scanning_) setStatus(ModelStatus::Ready);  // else once the tail is found
}

void SessionMonitor::absorbCredentialUse(const session::Event& e) {
  if (e.type == session::EventType::kCredentialRequest && !credential_sums_final_) {
    CredentialSum& s = credential_sums_[QString::fromStdString(e.fields.value("credential", std::string()))];
    const bool denied = e.fields.value("decision", std::string()) == "deny";
    (denied ? s.refused : s.requests) += e.count;
    s.tx += e.fields.value("bytes_tx", std::int64_t{0}) * e.count;
    s.rx += e.fields.value("bytes_rx", std::int64_t{0}) * e.count;
    emit credentialUsageChanged();
  } else if (e.type == session::EventType::kSessionEnded) {
    auto report = session::report_from_event(e);
    if (!report.ok() || report->credentials.empty()) return;
    credential_sums_.clear();
    for (const auto& c : report->credentials)
      credential_sums_[QString::fromStdString(c.name)] = {c.requests, c.refused, c.bytes_tx, c.bytes_rx};
    credential_sums_final_ = true;
    emit credentialUsageChanged();
  }
}

QVariantList SessionMonitor::credentialUsage() const {
  QVariantList out;
  for (const auto& [name, s] : credential_sums_)
    out << QVariantMap{{"name", name}, {"requests", s.requests}, {"refused", s.refused}, {"bytesTx", s.tx}, {"bytesRx", s.rx}};
  return out;
}

void SessionMonitor::clearLog() {
  credential_sums_.clear();
  credential_sums_final_ = false;
  emit credentialUsageChanged();
  tail_scanned_ = false;
  offset_ = 0;
  line_no_ = 0;
  partial_.clear();
  beginResetModel();
  rows_.clear();
  endResetModel();
}

void SessionMonitor::readNewLines() {
  if (scanning_ || file_.fileName().isEmpty()) return;  // the tail scan reads on when it is done
  if (!file_.isOpen() && !file_.open(QIODevice::ReadOnly)) return;  // not written yet
  if (file_.size() < offset_) {  // replaced under us: start over rather than show a spliced log
    setLastError(tr("events.jsonl was replaced while it was being read; reloaded"));
    clearLog();
  }
  // A long log opened for the first time: only its tail is read (the window), the lines before
  // it are counted, not parsed.
  if (offset_ == 0 && !tail_scanned_ && file_.size() > kTailBytes) return startTailScan();
  if (!file_.seek(offset_)) return;
  // One slice per turn of the event loop, so a burst of events never stalls a frame.
  const QByteArray chunk = file_.read(kSliceBytes);
  offset_ += chunk.size();
  partial_ += chunk;
  if (file_.size() > offset_ && !more_queued_) {
    more_queued_ = true;
    QTimer::singleShot(0, this, [this] {
      more_queued_ = false;
      readNewLines();
    });
  }
  std::vector<Row> added;
  qsizetype nl;
  // Only complete lines: the helper may be in the middle of appending the last one.
  while ((nl = partial_.indexOf('\n')) >= 0) {
    const QByteArray line = partial_.left(nl);
    partial_.remove(0, nl + 1);
    ++line_no_;
    if (line.trimmed().isEmpty()) continue;
    // The session module's reader decides what a line is; Qt's JSON only lays it out in columns.
    auto ev = session::decode_event(std::string_view(line.constData(), static_cast<std::size_t>(line.size())),
                                    "events.jsonl line " + std::to_string(line_no_));
    if (!ev.ok()) {
      Row bad;
      bad.kind = "unreadable";
      bad.alert = true;
      bad.text = QString::fromStdString(ev.error().message);
      added.push_back(bad);
      continue;
    }
    absorbCredentialUse(*ev);
    added.push_back(toRow(*ev));
  }
  if (added.empty()) return;
  // A window of the newest rows: memory stays bounded however long the session logs.
  if (added.size() > static_cast<size_t>(max_rows_)) {
    dropped_ += static_cast<qint64>(added.size() - static_cast<size_t>(max_rows_));
    added.erase(added.begin(), added.end() - max_rows_);
  }
  const size_t total = rows_.size() + added.size();
  if (total > static_cast<size_t>(max_rows_)) {
    const int drop = static_cast<int>(total - static_cast<size_t>(max_rows_));
    beginRemoveRows({}, 0, drop - 1);
    rows_.erase(rows_.begin(), rows_.begin() + drop);
    endRemoveRows();
    dropped_ += drop;
  }
  const int first = rowCount();
  beginInsertRows({}, first, first + static_cast<int>(added.size()) - 1);
  for (Row& r : added) rows_.push_back(std::move(r));
  endInsertRows();
  emit countChanged();
}

void SessionMonitor::startTailScan() {
  scanning_ = true;
  tail_scanned_ = true;
  setStatus(ModelStatus::Loading);
  const quint64 generation = generation_;
  auto* watcher = new QFutureWatcher<TailStart>(this);
  connect(watcher, &QFutureWatcher<TailStart>::finished, this, [this, watcher, generation] {
    watcher->deleteLater();
    if (generation != generation_) return;  // reloaded meanwhile: that scan was of another file
    scanning_ = false;
    const TailStart tail = watcher->result();
    if (tail.offset > 0) {
      offset_ = tail.offset;
      line_no_ = tail.lines;
      dropped_ += tail.lines;
    }
    setStatus(ModelStatus::Ready);
    readNewLines();
  });
  watcher->setFuture(QtConcurrent::run(find_tail_start, file_.fileName(), file_.size() - kTailBytes));
}

void SessionMonitor::readOutput() {
  const QString path = AppPaths::outputDir() + "/" + sessionId() + ".log";
  QFile f(path);
  if (sessionId().isEmpty() || !f.open(QIODevice::ReadOnly)) return;
  constexpr qint64 kKeep = 256 * 1024;
  const qint64 size = f.size();
  if (size == output_offset_ && has_output_) return;
  if (size < output_offset_) {
    output_.clear();
    output_offset_ = 0;
  }
  const qint64 from = std::max(output_offset_, size - kKeep);
  if (from > output_offset_) output_.clear();
  f.seek(from);
  output_ += f.read(size - from);
  output_offset_ = size;
  if (output_.size() > kKeep) output_.remove(0, output_.size() - kKeep);
  has_output_ = true;
  emit outputChanged();
}

void SessionMonitor::onMessage(const QJsonObject& line) {
  if (line.contains("ok")) {  // the answer to one of our commands
    if (!line.value("ok").toBool()) setLastError(line.value("error").toString());
    return;
  }
  const auto type = type_of(line);
  if (type == EventType::kAsk) {
    addAsk(line);
  } else if (type == EventType::kNetRequest) {
    // The broker's request event names the ask it settles (an answer from anywhere, or the
    // timeout); two asks for the same host and port stay apart.
    if (const QString settled = line.value("ask_id").toString(); !settled.isEmpty()) resolveAsk(settled);
  }
  if (keep_log_) readNewLines();
}

void SessionMonitor::addAsk(const QJsonObject& ev) {
  const QString id = ev.value("id").toString();
  if (id.isEmpty()) return;
  if (seen_asks_.contains(id)) return;
  seen_asks_.insert(id);
  Ask a{id, ev.value("host").toString(), ev.value("port").toInt(), QDateTime::currentMSecsSinceEpoch()};
  asks_.push_back(a);
  emit pendingAsksChanged();
  emit askRaised(a.id, a.host, a.port);
}

void SessionMonitor::resolveAsk(const QString& askId) {
  const auto before = asks_.size();
  asks_.erase(std::remove_if(asks_.begin(), asks_.end(), [&](const Ask& a) { return a.id == askId; }),
              asks_.end());
  if (asks_.size() != before) emit pendingAsksChanged();
}

void SessionMonitor::answerAsk(const QString& askId, const QString& decision) {
  const auto answer = session::parse_ask_answer(decision.toStdString());
  if (!answer) {
    setLastError(tr("unknown answer '%1': expected allow_once, allow_session or deny").arg(decision));
    return;
  }
  if (!live_) {
    setLastError(tr("the session is not running; its asks were already denied"));
    return;
  }
  client_.send(session::ask_reply_request(askId.toStdString(), *answer));
  // Gone from the list at once; the broker's net_request event confirms it in the log.
  resolveAsk(askId);
}

void SessionMonitor::stop() {
  if (!live_) {
    setLastError(tr("the session is not running"));
    return;
  }
  client_.send(session::request_of(session::ControlCommand::kStop));
}

void SessionMonitor::setLive(bool live) {
  if (live == live_) return;
  live_ = live;
  emit liveChanged();
}

void SessionMonitor::setLastError(const QString& e) {
  if (e == last_error_) return;
  last_error_ = e;
  emit lastErrorChanged();
}

namespace {

QString q(const std::string& s) { return QString::fromStdString(s); }

// The row's columns from the event's own payload (engine/session/event.h), read as its type
// declares it: a field renamed there is a compile error here, not an empty column.
struct RowOf {
  SessionMonitor::Row& r;
  void operator()(const session::NetRequest& p) const {
    r.host = q(p.host);
    r.port = p.port;
    r.decision = q(p.decision);
    r.rule = q(p.rule);
    r.text = q(p.reason);
    r.alert = p.decision == "deny";
  }
  void operator()(const session::DnsResolved& p) const {
    r.host = q(p.host);
    QStringList ips;
    for (const auto& ip : p.ips) ips << q(ip);
    r.ip = ips.join(", ");
    r.decision = q(p.verdict);
  }
  // A brokered request (docs/credentials.md): which credential, what was asked, how it ended.
  void operator()(const session::CredentialRequest& p) const {
    r.host = q(p.host);
    r.decision = q(p.decision);
    r.rule = q(p.rule);
    r.tx = p.bytes_tx;
    r.rx = p.bytes_rx;
    r.text = QString("%1: %2 %3 -> %4 (%5 ms)").arg(q(p.credential), q(p.method), q(p.path)).arg(p.status).arg(p.duration_ms);
    r.alert = p.decision == "deny";
  }
  void operator()(const session::NetEgress& p) const {
    r.host = q(p.host);
    r.port = p.port;
    r.ip = q(p.ip);
    r.tx = p.bytes_tx;
    r.rx = p.bytes_rx;
  }
  // What the session left for a tool on this machine to run (docs/audit.md), in words; the user
  // decides in `paddock quarantine` / `paddock keep`.
  void operator()(const session::AuditFindingEvent& p) const {
    r.decision = q(p.kind);
    r.rule = q(p.rule);
    r.text = SessionMonitor::tr("%1: %2 would run it (%3)").arg(q(p.path), q(p.tool), q(p.why));
    r.alert = p.severity == "high";
  }
  void operator()(const session::AuditIncomplete& p) const {
    r.text = SessionMonitor::tr("not audited: %1").arg(q(p.problem));
    r.alert = p.severity == "high";
  }
  // What was proven before exec, in one line; the whole record is attestation.json.
  void operator()(const session::AttestationStored& p) const {
    r.text = QString("ir_hash=%1  plan_hash=%2  abi=%3").arg(q(p.attestation.ir_hash), q(p.attestation.plan_hash)).arg(p.attestation.abi);
    if (!p.attestation.taint.empty()) r.text += QString("  TAINTED (%1)").arg(p.attestation.taint.size());
  }
};

// Each type RowOf lays out in columns, read from its payload; the others are shown as their
// fields (rest_of).
template <class P>
bool lay_out(const session::Event& e, SessionMonitor::Row& r) {
  if constexpr (std::is_invocable_v<RowOf, const P&>) {
    if (e.type != P::kType) return false;
    auto p = session::payload_of<P>(e);
    if (!p.ok()) return false;
    RowOf{r}(*p);
    return true;
  } else {
    return false;
  }
}

// Every event type's payload is tried: a type RowOf has an overload for gets its columns with
// nothing to list anywhere else.
template <class... P>
bool lay_out_any(const session::Event& e, SessionMonitor::Row& r, std::tuple<P...>*) {
  return (lay_out<P>(e, r) || ...);
}

}  // namespace

SessionMonitor::Row SessionMonitor::toRow(const session::Event& e) {
  Row r;
  r.time = q(e.ts);
  r.kind = session::event_name(e.type);
  const bool laid_out = lay_out_any(e, r, static_cast<session::EventPayloads*>(nullptr));
  if (!laid_out) {
    // An ask's or a quota's host and port stay in their columns.
    r.host = q(e.fields.value("host", std::string()));
    r.port = e.fields.value("port", 0);
    r.text = rest_of(e, {"host", "port"});
    r.alert = e.type == EventType::kLimitHit || e.type == EventType::kQuotaExceeded ||
              e.fields.value("level", std::string()) == "error" || e.fields.value("severity", std::string()) == "high";
  }
  // A folded line stands for several identical events.
  if (e.count > 1)
    r.text = tr("%1 times until %2").arg(e.count).arg(q(e.last_ts)) + (r.text.isEmpty() ? "" : "  " + r.text);
  return r;
}

}  // namespace paddock::gui
