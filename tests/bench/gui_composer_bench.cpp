// GUI responsiveness: time from an editor change to the updated IR + diff on screen data, for a
// typical profile and for a 10-layer stack with 500 rules; app start to first frame and RSS.
// Prints numbers and ratios against the bare engine (evaluate + diff) measured in the same run;
// no asserts. Goal: the typical edit within one 16 ms frame (debounce excluded).
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QGuiApplication>
#include <QQmlApplicationEngine>
#include <QQuickStyle>
#include <QQuickWindow>
#include <QSGRendererInterface>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QThread>
#include <QtQml/qqmlextensionplugin.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "app_paths.h"
#include "ir_diff.h"
#include "layer_document.h"
#include "policy_composer.h"

Q_IMPORT_QML_PLUGIN(PaddockPlugin)

using namespace paddock;
using namespace paddock::gui;

namespace {

QElapsedTimer g_since_start;

void write(const QString& path, const QByteArray& bytes) {
  QDir().mkpath(QFileInfo(path).path());
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly)) qFatal("cannot write %s", qPrintable(path));
  f.write(bytes);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

long rss_kib() {
  QFile f("/proc/self/status");
  if (!f.open(QIODevice::ReadOnly)) return -1;
  for (const QByteArray& line : f.readAll().split('\n'))
    if (line.startsWith("VmRSS:")) return line.mid(6).trimmed().split(' ').first().toLong();
  return -1;
}

// The machine's load average over the last minute and its core count: a start time measured on a
// shared machine means little without them (docs/gui.md, "Performance").
QString load_note() {
  QFile f("/proc/loadavg");
  const QByteArray one = f.open(QIODevice::ReadOnly) ? f.readAll().split(' ').value(0) : QByteArray("?");
  return QString("load %1 on %2 cores").arg(QString::fromLatin1(one)).arg(QThread::idealThreadCount());
}

struct Case {
  QString name;
  QString project;
  QString layer;  // the file being edited
  std::vector<std::string> extra_policies;
};

// Bare engine: evaluate the edited text and diff against the saved state.
double engine_ms(PolicyComposer& c, const std::string& layer, const std::string& text, const FrozenIr& base) {
  Inputs in = c.makeInputs(false);
  in.overlay[layer] = text;
  const auto t0 = std::chrono::steady_clock::now();
  auto e = evaluate(in);
  if (!e.ok()) qFatal("evaluate: %s", e.error().message.c_str());
  auto d = diff_ir(base, e->ir);
  (void)d;
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

void run_case(const Case& k, int rounds) {
  PolicyComposer c;
  c.setDebounceMs(0);  // measure the work, not the typing pause
  LayerDocument doc;
  doc.open(k.layer, "repository");
  c.setDocument(&doc);
  c.setProject(k.project);
  QSignalSpy spy(&c, &PolicyComposer::evaluated);
  if (!spy.wait(30000) || c.status() != ModelStatus::Ready) qFatal("%s: %s", qPrintable(k.name), qPrintable(c.errorString()));
  auto base = evaluate(c.makeInputs(false));
  if (!base.ok()) qFatal("baseline: %s", base.error().message.c_str());

  std::vector<double> gui, bare;
  for (int i = 0; i < rounds; ++i) {
    const QString item = "$PROJECT/bench" + QString::number(i % 2);
    QElapsedTimer t;
    t.start();
    spy.clear();
    const int revision = doc.revision();
    if (i % 2 == 0) doc.addItem("filesystem", "allow_write", item);
    else doc.removeItem("filesystem", "allow_write", static_cast<int>(doc.list("filesystem", "allow_write").size()) - 1);
    if (doc.revision() == revision) qFatal("%s: the edit changed nothing", qPrintable(k.name));
    while (c.busy() || spy.isEmpty()) spy.wait(5000);
    // Evaluated + the models the panes bind to (IR text, diff rows) are updated at this point.
    gui.push_back(static_cast<double>(t.nsecsElapsed()) / 1e6);
    bare.push_back(engine_ms(c, k.layer.toStdString(), doc.text().toStdString(), base->ir));
  }
  const double g = median(gui), b = median(bare);
  std::printf("%-34s edit->IR+diff median %7.2f ms (engine alone %7.2f ms, ratio %.2fx)  frame budget 16 ms: %s\n",
              qPrintable(k.name), g, b, b > 0 ? g / b : 0.0, g <= 16.0 ? "within" : "over");
}

}  // namespace

int main(int argc, char** argv) {
  g_since_start.start();
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  QTemporaryDir root;
  for (const char* d : {"runtime", "config", "state"}) QDir(root.path()).mkpath(d);
  QFile::setPermissions(root.path() + "/runtime", QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
  qputenv("XDG_RUNTIME_DIR", (root.path() + "/runtime").toUtf8());
  qputenv("XDG_CONFIG_HOME", (root.path() + "/config").toUtf8());
  qputenv("XDG_STATE_HOME", (root.path() + "/state").toUtf8());
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  // As paddock-gui does (main.cpp): Qt Quick's software renderer unless QT_QUICK_BACKEND says.
  if (qEnvironmentVariableIsEmpty("QT_QUICK_BACKEND")) QQuickWindow::setGraphicsApi(QSGRendererInterface::Software);
  QGuiApplication app(argc, argv);
  QQuickStyle::setStyle("Fusion");
  AppPaths::setExecutableDir(PADDOCK_BUILD_BIN);

  // Start to first frame, with the real Main.qml.
  {
    const qint64 before_load = g_since_start.elapsed();
    QQmlApplicationEngine engine;
    QElapsedTimer t;
    t.start();
    engine.load(QUrl("qrc:/Paddock/qml/Main.qml"));
    auto* w = engine.rootObjects().isEmpty() ? nullptr : qobject_cast<QQuickWindow*>(engine.rootObjects().first());
    if (!w) qFatal("Main.qml did not load");
    QSignalSpy frame(w, &QQuickWindow::frameSwapped);
    if (frame.isEmpty()) frame.wait(10000);
    std::printf("start to first frame: %lld ms (process start to QML load %lld ms; %s); RSS %ld KiB\n",
                static_cast<long long>(t.elapsed()), static_cast<long long>(before_load), qPrintable(load_note()),
                rss_kib());
  }

  // Typical: one repository layer on the default profile/preset with an agent.
  const QString typical = QFileInfo(root.path()).canonicalFilePath() + "/typical";
  for (const char* d : {"build", "dist", "bench0", "bench1"}) QDir().mkpath(typical + "/" + d);
  write(typical + "/.paddock/policy.yaml",
        "version: 1\nfilesystem:\n  allow_write:\n    - $PROJECT/build\n    - $PROJECT/dist\n"
        "network:\n  allow_domains: [github.com]\n");
  run_case({"typical profile", typical, typical + "/.paddock/policy.yaml", {}}, 30);

  // Large: repository layer + 9 fragments (10 layers), 500 rules in all.
  const QString large = QFileInfo(root.path()).canonicalFilePath() + "/large";
  for (const char* d : {"bench0", "bench1"}) QDir().mkpath(large + "/" + d);
  int rules = 0;
  for (int layer = 0; layer < 10; ++layer) {
    QByteArray y = "version: 1\nfilesystem:\n  allow_write:\n    - $PROJECT/out" + QByteArray::number(layer) + "\n  allow_read:\n";
    rules += 1;
    for (int i = 0; i < 30; ++i, ++rules) y += "    - $PROJECT/src/m" + QByteArray::number(layer) + "/d" + QByteArray::number(i) + "\n";
    y += "  deny:\n";
    for (int i = 0; i < 10; ++i, ++rules) y += "    - $PROJECT/secret" + QByteArray::number(layer) + "_" + QByteArray::number(i) + "\n";
    y += "network:\n  allow_domains:\n";
    for (int i = 0; i < 9; ++i, ++rules) y += "    - h" + QByteArray::number(i) + ".l" + QByteArray::number(layer) + ".example.com\n";
    const QString file = layer == 0 ? large + "/.paddock/policy.yaml"
                                    : large + "/.paddock/policy.d/" + QString::number(layer) + ".yaml";
    write(file, y);
  }
  run_case({QString("10-layer stack, %1 rules").arg(rules), large, large + "/.paddock/policy.yaml", {}}, 20);
  std::printf("RSS after benchmarks: %ld KiB\n", rss_kib());
  return 0;
}
