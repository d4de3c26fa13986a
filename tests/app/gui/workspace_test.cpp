// The user's projects as the app keeps them: a folder its user cannot read is refused when it is
// picked (with the engine's words: who cannot read what), and the agent chosen for a project is
// a property, so the cards that show it follow a change at once.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <QGuiApplication>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QtTest>

#include "app_paths.h"
#include "engine/tiers.h"
#include "gui_test_env.h"
#include "tests/support/skip.h"
#include "tests/support/test_paths.h"
#include "workspace.h"

using paddock::gui::AppPaths;
using paddock::gui::Workspace;

// A value other than the setting's fallback: the other truth value, or a text naming the key.
template <class T, class F>
T changed(const F& fallback, const char* key) {
  if constexpr (std::is_same_v<T, bool>) return !static_cast<bool>(fallback);
  else return QString("changed-") + key;
}

class WorkspaceTest : public QObject {
  Q_OBJECT

 public:
  explicit WorkspaceTest(paddock::gui::test::GuiTestEnv* env) : env_(env) {}

 private slots:
  void initTestCase() { AppPaths::setExecutableDir(QString::fromStdString(paddock::test::build_bin())); }

  void a_folder_its_user_cannot_read_is_refused_when_picked_and_says_by_whom() {
    // As uid 65534 (for root no mode hides a folder), in a child: the picker's path in, the
    // workspace's error out.
    if (::geteuid() != 0)
      PADDOCK_SKIP_USER("only root can hand a folder to uid 65534; the suite runs as uid " + std::to_string(::geteuid()));
    const QString root = QFileInfo(env_->root()).canonicalFilePath() + "/picked";
    const QString folder = root + "/locked-project";
    QVERIFY(QDir().mkpath(folder));
    ::chmod(QFile::encodeName(env_->root()).constData(), 0755);
    ::chmod(QFile::encodeName(root).constData(), 0755);
    ::chmod(QFile::encodeName(folder).constData(), 0700);  // root's: uid 65534 cannot list it
    int fds[2];
    QVERIFY(::pipe(fds) == 0);
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::close(fds[0]);
      if (::setgid(65534) != 0 || ::setuid(65534) != 0) _exit(3);
      qputenv("USER", "nobody");
      qputenv("XDG_CONFIG_HOME", "/nonexistent-config");  // the workspace saves nothing here
      Workspace w;
      const bool added = w.addProject("file://" + folder);
      const QByteArray out = (added ? "added\n" : "refused\n") + w.errorString().toUtf8();
      if (::write(fds[1], out.constData(), static_cast<size_t>(out.size())) < 0) _exit(4);
      _exit(0);
    }
    ::close(fds[1]);
    QByteArray out;
    char buf[4096];
    ssize_t n;
    while ((n = ::read(fds[0], buf, sizeof buf)) > 0) out.append(buf, n);
    ::close(fds[0]);
    ::waitpid(pid, nullptr, 0);
    QCOMPARE(QString::fromUtf8(out),
             "refused\nThe project folder " + folder +
                 " cannot be read by nobody (Permission denied); give nobody read access to it, or choose a folder it can read");
  }

  void the_agent_chosen_for_a_project_is_a_property_its_card_follows() {
    const QString a = QFileInfo(env_->root()).canonicalFilePath() + "/home";
    Workspace w;
    QVERIFY(w.addProject(a));
    QSignalSpy changed(&w, &Workspace::currentChanged);
    w.setCurrentAgent("codex");
    QCOMPARE(changed.count(), 1);
    QCOMPARE(w.projectAgents().value(a).toString(), QString("codex"));
    w.setCurrentAgent("claude-code");
    QCOMPARE(w.projectAgents().value(a).toString(), QString("claude-code"));
  }

  // Review mode is on for a project the app has not seen (docs/gui.md); turning it off is kept
  // per project in gui.json and read back by the next start.
  void a_new_project_is_reviewed_by_default_and_turning_it_off_is_remembered() {
    const QString a = QFileInfo(env_->root()).canonicalFilePath() + "/review-a";
    const QString b = QFileInfo(env_->root()).canonicalFilePath() + "/review-b";
    QVERIFY(QDir().mkpath(a) && QDir().mkpath(b));
    {
      Workspace w;
      QVERIFY(w.addProject(a));
      QVERIFY(w.addProject(b));
      QVERIFY(w.reviewOf(a));
      QVERIFY(w.reviewOf(b));
      w.setCurrentProject(a);
      QVERIFY(w.currentReview());
      QSignalSpy changed(&w, &Workspace::reviewChanged);
      w.setCurrentReview(false);
      QCOMPARE(changed.count(), 1);
      QVERIFY(!w.reviewOf(a));
      QVERIFY(w.reviewOf(b));
    }
    Workspace again;
    QVERIFY(!again.reviewOf(a));
    QVERIFY(again.reviewOf(b));
  }

  // The Linux tier is the user's choice in Settings, remembered, and never made for them.
  void the_linux_tier_starts_as_namespaces_and_the_users_choice_is_remembered() {
    {
      Workspace w;
      QCOMPARE(w.linuxTier(), QString("namespaces"));
      w.setLinuxTier("landlock");
    }
    Workspace again;
    QCOMPARE(again.linuxTier(), QString("landlock"));
    again.setLinuxTier("namespaces");
  }

  // Every setting of PADDOCK_GUI_SETTINGS, from the same list: its fallback when gui.json has
  // none, a changed value kept across a restart under its key, and a value of the wrong type read
  // as the fallback while the file is left as it was.
  void every_setting_keeps_a_changed_value_and_reads_a_wrong_type_as_its_fallback() {
    const QString file = AppPaths::guiConfigFile();
    QFile::remove(file);
    {
      Workspace w;
#define PADDOCK_CHANGE(name, setter, Type, key, fallback) \
  QCOMPARE(w.name(), Type(fallback));                     \
  w.setter(changed<Type>(fallback, key));
      PADDOCK_GUI_SETTINGS(PADDOCK_CHANGE)
#undef PADDOCK_CHANGE
    }
    QFile f(file);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonObject saved = QJsonDocument::fromJson(f.readAll()).object().value("settings").toObject();
    f.close();
    Workspace again;
#define PADDOCK_KEPT(name, setter, Type, key, fallback)             \
  QCOMPARE(again.name(), changed<Type>(fallback, key));             \
  QCOMPARE(saved.value(key).toVariant(), QVariant::fromValue(changed<Type>(fallback, key)));
    PADDOCK_GUI_SETTINGS(PADDOCK_KEPT)
#undef PADDOCK_KEPT
    // Each key given a value of the other type (a number for a text, a text for a switch).
    QJsonObject wrong;
#define PADDOCK_WRONG(name, setter, Type, key, fallback) \
  wrong.insert(key, std::is_same_v<Type, bool> ? QJsonValue("yes") : QJsonValue(7));
    PADDOCK_GUI_SETTINGS(PADDOCK_WRONG)
#undef PADDOCK_WRONG
    const QByteArray bytes = QJsonDocument(QJsonObject{{"version", 1}, {"settings", wrong}}).toJson();
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(bytes);
    f.close();
    {
      Workspace fallback_read;
#define PADDOCK_FALLBACK(name, setter, Type, key, fallback) QCOMPARE(fallback_read.name(), Type(fallback));
      PADDOCK_GUI_SETTINGS(PADDOCK_FALLBACK)
#undef PADDOCK_FALLBACK
    }
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(f.readAll(), bytes);
    QFile::remove(file);
  }

  // The agent list is the engine's presets (resources/agents) with the program each starts, and
  // not a list of the app's own.
  void the_agent_list_is_the_presets_of_resources_agents_with_their_programs() {
    Workspace w;
    const auto presets = paddock::agent_presets(AppPaths::resourcesDir().toStdString());
    QVERIFY(presets.ok());
    int listed = 0;
    for (const auto& p : *presets) {
      const QString name = QString::fromStdString(p.name);
      if (p.command.empty()) {
        QCOMPARE(w.agents()->indexOfName(name), -1);  // custom: the user's own commands use it
        continue;
      }
      QVERIFY2(w.agents()->indexOfName(name) >= 0, p.name.c_str());
      QCOMPARE(w.agents()->commandOf(name), QString::fromStdString(p.command));
      QCOMPARE(w.agents()->presetAt(w.agents()->indexOfName(name)), name);
      ++listed;
    }
    QCOMPARE(w.agents()->rowCount(), listed);
  }

 private:
  paddock::gui::test::GuiTestEnv* env_;
};

int main(int argc, char** argv) {
  paddock::gui::test::GuiTestEnv env;
  QGuiApplication app(argc, argv);
  WorkspaceTest t(&env);
  return QTest::qExec(&t, argc, argv);
}

#include "workspace_test.moc"
