#include "session_monitor.h"

#include <algorithm>
#include <optional>

#include <QFileInfo>
#include <QFutureWatcher>
#include <QJsonArray>
#include <QJsonDocument>
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

// Everything an event says beyond the columns, as "key=value" in the file's key order.
QString rest_of(const QJsonObject& ev, std::initializer_list<const char*> shown) {
  QStringList parts;
  for (auto it = ev.begin(); it != ev.end(); ++it) {
    if (std::any_of(shown.begin(), shown.end(), [&](const char* k) { return it.key() == k; })) continue;
    const QJsonValue v = it.value();
    QString text = v.isString() ? v.toString()
                 : v.isDouble() ? QString::number(v.toDouble(), 'g', 15)
                 : v.isBool()   ? (v.toBool() ? "true" : "false")
                                : QString::fromUtf8(v.isArray() ? QJsonDocument(v.toArray()).toJson(QJsonDocument::Compact)
                                                                : QJsonDocument(v.toObject()).toJson(QJsonDocument::Compact));
    parts << it.key() + "=" + text;
  }
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
  // Subscribe before the first read: the subscription then sees every event the read misses.
  connectIfRunning(/*quiet=*/false);
  if (keep_log_) {
    file_.setFileName(dir_ + "/events.jsonl");
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
  if (scanning_) return;  // the tail scan reads on when it is done
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
    const auto doc = QJsonDocument::fromJson(line);
    if (!ev.ok() || !doc.isObject()) {
      Row bad;
      bad.kind = "unreadable";
      bad.alert = true;
      bad.text = ev.ok() ? tr("events.jsonl line %1 is not JSON").arg(line_no_)
                         : QString::fromStdString(ev.error().message);
      added.push_back(bad);
      continue;
    }
    absorbCredentialUse(*ev);
    added.push_back(toRow(doc.object()));
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

SessionMonitor::Row SessionMonitor::toRow(const QJsonObject& ev) {
  Row r;
  r.time = ev.value("ts").toString();
  r.kind = ev.value("event").toString();
  r.host = ev.value("host").toString();
  r.port = ev.value("port").toInt();
  const auto type = type_of(ev);
  r.alert = type == EventType::kLimitHit || type == EventType::kQuotaExceeded ||
            ev.value("decision").toString() == "deny" || ev.value("level").toString() == "error" ||
            ev.value("severity").toString() == "high";
  if (type == EventType::kNetRequest) {
    r.decision = ev.value("decision").toString();
    r.rule = ev.value("rule").toString();
    r.text = ev.value("reason").toString();
  } else if (type == EventType::kDnsResolved) {
    QStringList ips;
    for (const auto& ip : ev.value("ips").toArray()) ips << ip.toString();
    r.ip = ips.join(", ");
    r.decision = ev.value("verdict").toString();
  } else if (type == EventType::kCredentialRequest) {
    // A brokered request (docs/credentials.md): which credential, what was asked, how it ended.
    r.decision = ev.value("decision").toString();
    r.rule = ev.value("rule").toString();
    r.port = 0;
    r.tx = static_cast<qint64>(ev.value("bytes_tx").toDouble(-1));
    r.rx = static_cast<qint64>(ev.value("bytes_rx").toDouble(-1));
    r.text = QString("%1: %2 %3 -> %4 (%5 ms)")
                 .arg(ev.value("credential").toString(), ev.value("method").toString(), ev.value("path").toString())
                 .arg(ev.value("status").toInt())
                 .arg(static_cast<qint64>(ev.value("duration_ms").toDouble()));
  } else if (type == EventType::kNetEgress) {
    r.ip = ev.value("ip").toString();
    r.tx = static_cast<qint64>(ev.value("bytes_tx").toDouble(-1));
    r.rx = static_cast<qint64>(ev.value("bytes_rx").toDouble(-1));
  } else if (type == EventType::kAuditFinding) {
    // What the session left for a tool on this machine to run (docs/audit.md), in words; the
    // user decides in `paddock quarantine` / `paddock keep`.
    r.decision = ev.value("kind").toString();
    r.rule = ev.value("rule").toString();
    r.text = tr("%1: %2 would run it (%3)")
                 .arg(ev.value("path").toString(), ev.value("tool").toString(), ev.value("why").toString());
  } else if (type == EventType::kAuditIncomplete) {
    r.text = tr("not audited: %1").arg(ev.value("problem").toString());
  } else if (type == EventType::kAttestation) {
    // What was proven before exec, in one line; the whole record is attestation.json.
    const QJsonObject a = ev.value("attestation").toObject();
    r.text = QString("ir_hash=%1  plan_hash=%2  abi=%3")
                 .arg(a.value("ir_hash").toString(), a.value("plan_hash").toString())
                 .arg(a.value("abi").toInt());
    const QJsonArray taint = a.value("taint").toArray();
    if (!taint.isEmpty()) r.text += QString("  TAINTED (%1)").arg(taint.size());
  } else {
    r.text = rest_of(ev, {"ts", "event", "host", "port", "count", "last_ts"});
  }
  // A folded line stands for several identical events.
  if (const int count = ev.value("count").toInt(1); count > 1)
    r.text = tr("%1 times until %2").arg(count).arg(ev.value("last_ts").toString()) + (r.text.isEmpty() ? "" : "  " + r.text);
  return r;
}

}  // namespace paddock::gui
