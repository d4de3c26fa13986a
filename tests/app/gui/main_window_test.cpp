// Loads the real Main.qml offscreen and fails on any QML warning; walks every page.
#include <QApplication>
#include <QQmlApplicationEngine>
#include <QQuickItem>
#include <QQuickStyle>
#include <QQuickWindow>
#include <QtQml/qqmlextensionplugin.h>
#include <QtTest>

#include "app_paths.h"
#include "engine/builtin_lists.h"
#include "engine/ir.h"
#include "engine/layer_schema.h"
#include "gui_test_env.h"
#include "tests/support/test_paths.h"

Q_IMPORT_QML_PLUGIN(PaddockPlugin)

using paddock::gui::test::qt_warnings;

class MainWindowTest : public QObject {
  Q_OBJECT

 public:
  explicit MainWindowTest(paddock::gui::test::GuiTestEnv* env) : env_(env) {}

 private slots:
  void initTestCase() {
    paddock::gui::AppPaths::setExecutableDir(QString::fromStdString(paddock::test::build_bin()));
    paddock::gui::test::capture_warnings();
  }

  void main_qml_loads_without_a_single_warning() {
    QQmlApplicationEngine engine;
    QStringList qml_warnings;
    connect(&engine, &QQmlEngine::warnings, this, [&](const QList<QQmlError>& errors) {
      for (const auto& e : errors) qml_warnings << e.toString();
    });
    engine.load(QUrl("qrc:/Paddock/qml/Main.qml"));
    QCOMPARE(engine.rootObjects().size(), 1);
    auto* window = qobject_cast<QQuickWindow*>(engine.rootObjects().first());
    QVERIFY(window);
    QVERIFY(QTest::qWaitForWindowExposed(window));
    // Visit every page so that lazily evaluated bindings run too.
    auto* nav = window->findChild<QObject*>("nav");
    QVERIFY(nav);
    for (int i : {1, 2, 3, 0}) {
      nav->setProperty("currentIndex", i);
      QTest::qWait(50);
    }
    // The doctor probe runs the real helper asynchronously; its result is rendered too.
    auto* doctor = window->findChild<QQuickItem*>("doctorPlaceholder");
    QVERIFY(doctor);
    QTRY_VERIFY_WITH_TIMEOUT(doctor->property("status").toInt() != 1 /* Loading */, 20000);
    QVERIFY2(qml_warnings.isEmpty(), qPrintable(qml_warnings.join('\n')));
    QVERIFY2(qt_warnings().isEmpty(), qPrintable(qt_warnings().join('\n')));
  }

  // The rail's entries and the pages are one list, joined by key (NavRail.pages and each page's
  // navKey), never by place: every entry has exactly one page and every page an entry, and
  // showing a key shows its page.
  void each_rail_entry_shows_the_page_of_its_key() {
    QQmlApplicationEngine engine;
    auto* window = paddock::gui::test::main_window(engine);
    QVERIFY(window);
    auto* nav = window->findChild<QObject*>("nav");
    auto* pages = window->findChild<QQuickItem*>("pages");
    QVERIFY(nav && pages);
    QStringList keys, page_keys;
    for (const QVariant& e : nav->property("pages").toList()) keys << e.toMap().value("key").toString();
    for (QQuickItem* page : pages->childItems()) page_keys << page->property("navKey").toString();
    QCOMPARE(keys.size(), 4);
    QStringList sorted_keys = keys, sorted_pages = page_keys;
    sorted_keys.sort();
    sorted_pages.sort();
    QCOMPARE(sorted_pages, sorted_keys);
    QCOMPARE(QSet<QString>(keys.begin(), keys.end()).size(), keys.size());
    for (const QString& key : keys) {
      QVERIFY(QMetaObject::invokeMethod(nav, "show", Q_ARG(QVariant, key)));
      QCOMPARE(nav->property("currentKey").toString(), key);
      QQuickItem* shown = pages->childItems().value(pages->property("currentIndex").toInt());
      QVERIFY(shown);
      QCOMPARE(shown->property("navKey").toString(), key);
      QTRY_VERIFY(shown->isVisible());
    }
  }

  // A choice the app offers in words of its own still sends the engine's word: the Linux tiers
  // of Settings and the network modes of the launch options are exactly the engine's (a word the
  // engine adds or renames fails here until the app offers it).
  void the_choices_the_app_offers_are_the_engines_words() {
    QQmlApplicationEngine engine;
    auto* window = paddock::gui::test::main_window(engine);
    QVERIFY(window);
    const auto values = [&](const char* name) {
      QStringList out;
      auto* box = window->findChild<QObject*>(name);
      if (box)
        for (const QVariant& e : box->property("model").toList()) out << e.toMap().value("value").toString();
      return out;
    };
    QStringList tiers, modes = {""};  // "" = as the policy says
    for (const auto& w : paddock::layer_schema::linux_tier_words()) tiers << QString::fromStdString(w);
    for (const auto& [mode, name] : paddock::schema::EnumNames<paddock::NetMode>::values)
      modes << QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size()));
    QCOMPARE(values("linuxTierBox"), tiers);
    QCOMPARE(values("netModeBox"), modes);
  }

  void the_sessions_page_shows_its_empty_state_when_there_are_no_sessions() {
    QQmlApplicationEngine engine;
    engine.load(QUrl("qrc:/Paddock/qml/Main.qml"));
    QCOMPARE(engine.rootObjects().size(), 1);
    auto* root = engine.rootObjects().first();
    auto* placeholder = root->findChild<QQuickItem*>("sessionsPlaceholder");
    QVERIFY(placeholder);
    QVERIFY(placeholder->property("active").toBool());
    QVERIFY(placeholder->findChild<QObject*>("placeholderText")->property("text").toString()
                .contains("No sessions yet"));
  }

  // Renders every page offscreen to PNG (into $PADDOCK_SCREENSHOT_DIR when set, else a temp dir)
  // and checks each is a real picture, not a blank window.
  void each_page_renders_to_a_png() {
    QTemporaryDir tmp;
    const QString out = qEnvironmentVariableIsSet("PADDOCK_SCREENSHOT_DIR")
                            ? qEnvironmentVariable("PADDOCK_SCREENSHOT_DIR") : tmp.path();
    QQmlApplicationEngine engine;
    auto* window = paddock::gui::test::main_window(engine);
    QVERIFY(window);
    auto* nav = window->findChild<QObject*>("nav");
    const QStringList pages = {"home", "sessions", "customize", "settings"};
    for (int i = 0; i < pages.size(); ++i) {
      nav->setProperty("currentIndex", i);
      QTest::qWait(300);
      const QImage img = window->grabWindow();
      QVERIFY(!img.isNull());
      QCOMPARE(img.size(), window->size() * window->devicePixelRatio());
      QSet<QRgb> colours;
      for (int y = 0; y < img.height(); y += 7)
        for (int x = 0; x < img.width(); x += 7) colours.insert(img.pixel(x, y));
      QVERIFY2(colours.size() > 8, qPrintable(pages[i] + " rendered nearly blank"));
      QVERIFY(img.save(out + "/offscreen-" + pages[i] + ".png"));
    }
  }

  void at_1024_by_700_nothing_is_cut_off_and_the_window_has_a_minimum_size() {
    QQmlApplicationEngine engine;
    engine.load(QUrl("qrc:/Paddock/qml/Main.qml"));
    auto* window = qobject_cast<QQuickWindow*>(engine.rootObjects().first());
    QVERIFY(window);
    QVERIFY(window->minimumWidth() >= 900 && window->minimumWidth() <= 1024);
    QVERIFY(window->minimumHeight() >= 600 && window->minimumHeight() <= 700);
    window->resize(1024, 700);
    QVERIFY(QTest::qWaitForWindowExposed(window));
    QTest::qWait(200);
    for (const char* name : {"addProjectButton", "nav"}) {
      auto* item = window->findChild<QQuickItem*>(name);
      QVERIFY2(item, name);
      const QPointF p = item->mapToScene(QPointF(item->width(), item->height()));
      QVERIFY2(p.x() <= 1024 && p.y() <= 700, name);
    }
  }

  void a_session_directory_appears_as_a_row_with_state_command_and_hash() {
    const QString dir = env_->state() + "/paddock/sessions/s-20261129-0001";
    QVERIFY(QDir().mkpath(dir));
    write(dir + "/events.jsonl",
          "{\"ts\":\"2026-11-29T10:00:00Z\",\"event\":\"session_started\",\"command\":[\"claude\",\"--help\"],"
          "\"ir_hash\":\"sha256:abc123\",\"session_id\":\"s-20261129-0001\",\"plan_hash\":\"sha256:0\","
          "\"backend\":\"linux\",\"tainted\":false,\"helper_pid\":1}\n"
          "{\"ts\":\"2026-11-29T10:00:05Z\",\"event\":\"session_ended\",\"status\":\"exited\",\"exit_code\":0}\n");
    write(dir + "/report.json", R"({"session_id":"s-20261129-0001","status":"exited","exit_code":0})");
    QQmlApplicationEngine engine;
    engine.load(QUrl("qrc:/Paddock/qml/Main.qml"));
    QCOMPARE(engine.rootObjects().size(), 1);
    auto* root = engine.rootObjects().first();
    auto* list = root->findChild<QQuickItem*>("sessionsList");
    QVERIFY(list);
    auto* model = qvariant_cast<QAbstractItemModel*>(list->property("model"));
    QVERIFY(model);
    QCOMPARE(model->rowCount(), 1);
    auto roles = model->roleNames();
    auto role = [&](const char* name) { return roles.key(name); };
    const auto idx = model->index(0, 0);
    QCOMPARE(model->data(idx, role("sessionId")).toString(), QString("s-20261129-0001"));
    QCOMPARE(model->data(idx, role("state")).toString(), QString("exited"));
    QCOMPARE(model->data(idx, role("command")).toString(), QString("claude --help"));
    QCOMPARE(model->data(idx, role("irHash")).toString(), QString("sha256:abc123"));
    QVERIFY(!root->findChild<QQuickItem*>("sessionsPlaceholder")->property("active").toBool());

    // Selecting it shows its log, rendered without a single QML warning.
    qt_warnings().clear();
    auto* page = root->findChild<QQuickItem*>("sessionsPage");
    QVERIFY(page);
    page->setProperty("selectedDir", dir);
    auto* log = root->findChild<QQuickItem*>("eventLog");
    QVERIFY(log);
    QTRY_COMPARE(log->property("count").toInt(), 2);
    QVERIFY(log->property("visible").toBool() || !page->isVisible());
    QCOMPARE(root->findChild<QQuickItem*>("stopButton")->property("enabled").toBool(), false);
    QTest::qWait(100);
    QVERIFY2(qt_warnings().isEmpty(), qPrintable(qt_warnings().join('\n')));
    QDir(dir).removeRecursively();
  }

  // Customize at 1024x700 with a layer open: Save, Undo, the agent choice and the tier stack's
  // buttons are whole on screen, and the editor and the effective policy are stacked (below
  // 1100 px, docs/gui.md).
  void customize_at_1024_by_700_shows_save_undo_and_the_agent_and_stacks_its_panes() {
    const QString project = QFileInfo(env_->root()).canonicalFilePath() + "/home/narrow-project";
    QVERIFY(QDir().mkpath(project + "/.paddock"));
    write(project + "/.paddock/policy.yaml", "version: 1\n");
    const QString gui_json = env_->config() + "/paddock/gui.json";
    QVERIFY(QDir().mkpath(env_->config() + "/paddock"));
    write(gui_json, QString(R"({"version":1,"projects":[{"path":"%1"}],"current_project":"%1","custom_agents":[]})")
                        .arg(project).toUtf8());
    QQmlApplicationEngine engine;
    engine.load(QUrl("qrc:/Paddock/qml/Main.qml"));
    auto* window = qobject_cast<QQuickWindow*>(engine.rootObjects().first());
    QVERIFY(window);
    window->resize(1024, 700);
    QVERIFY(QTest::qWaitForWindowExposed(window));
    window->findChild<QObject*>("nav")->setProperty("currentIndex", 2);
    auto* page = window->findChild<QQuickItem*>("profilesPage");
    QVERIFY(page);
    QTRY_COMPARE(window->width(), 1024);
    QTest::qWait(300);
    for (const char* name : {"saveButton", "undoButton", "agentBox", "projectBox", "newRepositoryLayer", "newLocalLayer"}) {
      auto* item = page->findChild<QQuickItem*>(name);
      QVERIFY2(item && item->isVisible(), name);
      const QPointF tl = item->mapToScene(QPointF(0, 0));
      const QPointF br = item->mapToScene(QPointF(item->width(), item->height()));
      QVERIFY2(tl.x() >= 0 && br.x() <= 1024 && br.y() <= 700, qPrintable(QString("%1 at %2,%3-%4,%5").arg(name)
                                                                             .arg(tl.x()).arg(tl.y()).arg(br.x()).arg(br.y())));
      QVERIFY2(item->width() >= 60, name);
    }
    auto* agent = page->findChild<QQuickItem*>("agentBox");
    QVERIFY2(agent->width() >= 160, qPrintable(QString::number(agent->width())));  // the agent's name reads whole
    auto* editor = page->findChild<QQuickItem*>("layerEditor");
    auto* effective = page->findChild<QQuickItem*>("effectivePolicy");
    QVERIFY(editor && effective);
    const QPointF e = editor->mapToScene(QPointF(0, 0)), p = effective->mapToScene(QPointF(0, 0));
    QVERIFY2(p.y() > e.y() + 100 && qAbs(p.x() - e.x()) < 2, "the panes are not stacked");
    // The form offers the engine's deny lists, each under its name (its title is the tooltip).
    for (const auto& name : paddock::deny_list_names()) {
      auto* box = find_item(page, QString::fromStdString("denyList_" + name));
      QVERIFY2(box, name.c_str());
      QCOMPARE(box->property("text").toString(), QString::fromStdString(name));
    }
    QVERIFY2(qt_warnings().isEmpty(), qPrintable(qt_warnings().join('\n')));
    QFile::remove(gui_json);
  }

  // Focus in Customize's YAML view, then Home chosen in the rail: what is typed on Home (Tab,
  // letters, Ctrl+S) never reaches the hidden editor, and Ctrl+S saves only on Customize.
  void keys_typed_on_another_page_never_reach_the_hidden_editor() {
    const QString project = QFileInfo(env_->root()).canonicalFilePath() + "/home/kbd-project";
    const QString layer = project + "/.paddock/policy.yaml";
    QVERIFY(QDir().mkpath(project + "/.paddock"));
    const QByteArray saved = "version: 1\nfilesystem:\n  allow_write: []\n";
    write(layer, saved);
    const QString gui_json = env_->config() + "/paddock/gui.json";
    QVERIFY(QDir().mkpath(env_->config() + "/paddock"));
    write(gui_json, QString(R"({"version":1,"projects":[{"path":"%1"}],"current_project":"%1","custom_agents":[]})")
                        .arg(project).toUtf8());

    QQmlApplicationEngine engine;
    engine.load(QUrl("qrc:/Paddock/qml/Main.qml"));
    auto* window = qobject_cast<QQuickWindow*>(engine.rootObjects().first());
    QVERIFY(window);
    window->requestActivate();
    QVERIFY(QTest::qWaitForWindowExposed(window));
    auto* nav = window->findChild<QObject*>("nav");
    nav->setProperty("currentIndex", 2);
    auto* tabs = window->findChild<QQuickItem*>("editorTabs");
    QVERIFY(tabs);
    tabs->setProperty("currentIndex", 1);
    auto* yaml = window->findChild<QQuickItem*>("yamlText");
    QVERIFY(yaml);
    QTRY_COMPARE(yaml->property("text").toString().toUtf8(), saved);
    yaml->forceActiveFocus();
    QTRY_VERIFY(yaml->hasActiveFocus());
    QTest::keyClick(window, Qt::Key_End, Qt::ControlModifier);
    type(window, "# mine\n");
    QTRY_VERIFY(yaml->property("text").toString().contains("# mine"));
    const QString typed = yaml->property("text").toString();

    auto* home = find_item(window->contentItem(), "nav_home");  // a Repeater's: no QObject parent
    QVERIFY(home);
    QTest::mouseClick(window, Qt::LeftButton, {}, home->mapToScene(QPointF(home->width() / 2, home->height() / 2)).toPoint());
    QTRY_COMPARE(nav->property("currentIndex").toInt(), 0);
    QVERIFY(!yaml->hasActiveFocus());
    for (int i = 0; i < 4; ++i) QTest::keyClick(window, Qt::Key_Tab);
    type(window, "zz");
    QTest::keyClick(window, Qt::Key_S, Qt::ControlModifier);
    QTest::qWait(100);
    QCOMPARE(yaml->property("text").toString(), typed);
    QCOMPARE(read(layer), saved);  // Ctrl+S on Home saved nothing

    nav->setProperty("currentIndex", 2);
    QTest::qWait(50);
    QTest::keyClick(window, Qt::Key_S, Qt::ControlModifier);
    QTRY_COMPARE(read(layer), typed.toUtf8());
    QFile::remove(gui_json);
  }

 private:
  static QQuickItem* find_item(QQuickItem* root, const QString& name) {
    if (root->objectName() == name) return root;
    for (QQuickItem* c : root->childItems())
      if (QQuickItem* found = find_item(c, name)) return found;
    return nullptr;
  }
  static void type(QWindow* w, const char* text) {
    for (const char* c = text; *c; ++c) {
      if (*c == '\n') QTest::keyClick(w, Qt::Key_Return);
      else QTest::keyClick(w, *c);
    }
  }
  static QByteArray read(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
  }
  static void write(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(bytes);
  }

  paddock::gui::test::GuiTestEnv* env_;
};

int main(int argc, char** argv) {
  paddock::gui::test::GuiTestEnv env;  // before QApplication: the platform reads XDG_RUNTIME_DIR
  QApplication app(argc, argv);
  QQuickStyle::setStyle("Fusion");
  MainWindowTest test(&env);
  return QTest::qExec(&test, argc, argv);
}

#include "main_window_test.moc"
