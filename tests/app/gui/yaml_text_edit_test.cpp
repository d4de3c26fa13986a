// The form view edits YAML as text: comments, unknown keys and formatting must survive.
#include <QtTest>

#include "app_paths.h"
#include "engine/builtin_lists.h"
#include "engine/layer.h"
#include "engine/tiers.h"
#include "layer_document.h"
#include "tests/support/test_paths.h"
#include "yaml_text_edit.h"

using namespace paddock::gui;

namespace {

const char* kLayer =
    "version: 1\n"
    "# The team's policy. Keep this comment.\n"
    "metadata: {name: team}\n"
    "filesystem:\n"
    "  # build output only\n"
    "  allow_write:\n"
    "    - $PROJECT/build   # compiled artefacts\n"
    "    - $PROJECT/dist\n"
    "  deny: [\"$PROJECT/secrets\"]  # flow style stays flow style\n"
    "  future_key: keep me       # a key this GUI version does not know\n"
    "network:\n"
    "  allow_domains:\n"
    "  - github.com\n"
    "x-custom-extension:\n"
    "  anything: [1, 2, 3]\n";

std::string must(const paddock::Result<std::string>& r) {
  if (!r.ok()) qFatal("edit failed: %s", r.error().message.c_str());
  return *r;
}

}  // namespace

class YamlTextEditTest : public QObject {
  Q_OBJECT
 private slots:
  void removing_an_item_touches_only_its_line() {
    const std::string out = must(set_yaml_sequence(kLayer, "filesystem", "allow_write", {"$PROJECT/build"}));
    std::string expected = kLayer;
    expected.erase(expected.find("    - $PROJECT/dist\n"), std::string("    - $PROJECT/dist\n").size());
    QCOMPARE(QString::fromStdString(out), QString::fromStdString(expected));
  }

  void adding_an_item_appends_one_line_after_the_last_item_and_keeps_comments() {
    const std::string out =
        must(set_yaml_sequence(kLayer, "filesystem", "allow_write", {"$PROJECT/build", "$PROJECT/dist", "/tmp/cache"}));
    QVERIFY(out.find("    - $PROJECT/dist\n    - /tmp/cache\n") != std::string::npos);
    QVERIFY(out.find("# compiled artefacts") != std::string::npos);
    QVERIFY(out.find("future_key: keep me       # a key this GUI version does not know") != std::string::npos);
    QVERIFY(out.find("x-custom-extension:\n  anything: [1, 2, 3]\n") != std::string::npos);
    QCOMPARE(out.size(), std::string(kLayer).size() + std::string("    - /tmp/cache\n").size());
  }

  void a_flow_sequence_is_rewritten_in_place_with_its_comment() {
    const std::string out = must(set_yaml_sequence(kLayer, "filesystem", "deny", {"$PROJECT/secrets", "~/.aws"}));
    QVERIFY2(out.find("  deny: [$PROJECT/secrets, ~/.aws]  # flow style stays flow style\n") != std::string::npos,
             out.c_str());
  }

  void a_same_indent_block_sequence_keeps_its_style() {
    const std::string out = must(set_yaml_sequence(kLayer, "network", "allow_domains", {"github.com", "*.npmjs.org"}));
    QVERIFY2(out.find("  allow_domains:\n  - github.com\n  - \"*.npmjs.org\"\n") != std::string::npos, out.c_str());
  }

  void a_missing_key_and_a_missing_section_are_inserted() {
    std::string out = must(set_yaml_sequence(kLayer, "filesystem", "allow_read", {"/opt/sdk"}));
    QVERIFY2(out.find("  future_key: keep me       # a key this GUI version does not know\n  allow_read:\n    - /opt/sdk\nnetwork:") !=
                 std::string::npos,
             out.c_str());
    out = must(set_yaml_scalar(out, "limits", "memory", "4GiB"));
    QVERIFY(out.find("limits:\n  memory: 4GiB\n") != std::string::npos);
    auto back = read_yaml_scalar(out, "limits", "memory");
    QVERIFY(back.ok());
    QCOMPARE(*back, std::string("4GiB"));
  }

  void emptying_a_block_list_leaves_an_explicit_empty_list() {
    const std::string out = must(set_yaml_sequence(kLayer, "filesystem", "allow_write", {}));
    QVERIFY2(out.find("  allow_write: []\n  deny:") != std::string::npos, out.c_str());
    auto items = read_yaml_sequence(out, "filesystem", "allow_write");
    QVERIFY(items.ok() && items->empty());
  }

  void values_yaml_would_misread_are_quoted() {
    QCOMPARE(yaml_quote("*.github.com"), std::string("\"*.github.com\""));
    QCOMPARE(yaml_quote("no"), std::string("\"no\""));
    QCOMPARE(yaml_quote("a: b"), std::string("\"a: b\""));
    QCOMPARE(yaml_quote("$PROJECT/build"), std::string("$PROJECT/build"));
    const std::string out = must(set_yaml_sequence("version: 1\n", "environment", "deny", {"AWS_*", "x # y"}));
    auto back = read_yaml_sequence(out, "environment", "deny");
    QVERIFY(back.ok());
    QCOMPARE(*back, (std::vector<std::string>{"AWS_*", "x # y"}));
  }

  void a_flow_mapping_section_is_refused_not_rewritten() {
    auto r = set_yaml_sequence("version: 1\nfilesystem: {allow_write: [a]}\n", "filesystem", "allow_write", {"b"});
    QVERIFY(!r.ok());
    QVERIFY2(r.error().message.find("YAML view") != std::string::npos, r.error().message.c_str());
  }

  void a_document_that_does_not_parse_is_never_edited() {
    auto r = set_yaml_sequence("version: 1\nfilesystem:\n  allow_write: [a\n", "filesystem", "allow_write", {"b"});
    QVERIFY(!r.ok());
  }

  void a_form_edit_and_save_keep_unknown_keys_and_comments_on_disk() {
    QTemporaryDir dir;
    const QString path = dir.path() + "/.paddock/policy.yaml";
    QVERIFY(QDir().mkpath(dir.path() + "/.paddock"));
    {
      QFile f(path);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(kLayer);
    }
    LayerDocument doc;
    QVERIFY(doc.open(path, "repository"));
    QVERIFY(!doc.dirty());
    QVERIFY(doc.removeItem("filesystem", "allow_write", 1));   // drop $PROJECT/dist
    QVERIFY(doc.addItem("filesystem", "deny", "$PROJECT/.cache"));
    QVERIFY(doc.setScalar("limits", "processes", "256"));
    QVERIFY(doc.dirty());
    QVERIFY2(doc.save(), qPrintable(doc.errorString()));
    QVERIFY(!doc.dirty());
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QString saved = QString::fromUtf8(f.readAll());
    for (const char* kept : {"# The team's policy. Keep this comment.", "metadata: {name: team}", "# build output only",
                             "- $PROJECT/build   # compiled artefacts", "# flow style stays flow style",
                             "future_key: keep me       # a key this GUI version does not know",
                             "x-custom-extension:\n  anything: [1, 2, 3]"})
      QVERIFY2(saved.contains(kept), qPrintable("lost: " + QString(kept) + "\n---\n" + saved));
    QVERIFY(!saved.contains("$PROJECT/dist"));
    QVERIFY(saved.contains("$PROJECT/.cache"));
    QVERIFY(saved.contains("limits:\n  processes: 256\n"));
    // No temp file is left next to it.
    QCOMPARE(QDir(dir.path() + "/.paddock").entryList(QDir::Files | QDir::Hidden).size(), 1);
  }

  void a_missing_default_layer_is_not_opened_as_a_template() {
    QTemporaryDir dir;
    LayerDocument doc;
    QVERIFY(!doc.openExisting(dir.path() + "/.paddock/policy.yaml", "repository"));
    QVERIFY(!doc.loaded());
    QVERIFY(doc.text().isEmpty());
  }

  void the_project_layers_are_opened_where_the_engine_reads_them() {
    QTemporaryDir dir;
    LayerDocument doc;
    QCOMPARE(doc.projectFile("", "repository"), QString::fromStdString(paddock::tier_file_name(paddock::kTierRepo)));
    QCOMPARE(doc.projectFile(dir.path(), "local"),
             QString::fromStdString(paddock::tier_file(paddock::kTierLocal, dir.path().toStdString(), {})));
    QCOMPARE(doc.projectFile(dir.path(), "fragment"), QString());
    QVERIFY(!doc.openExistingInProject(dir.path(), "local"));
    QVERIFY(QDir(dir.path()).mkpath(".paddock"));
    QFile f(doc.projectFile(dir.path(), "local"));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("version: 1\n");
    f.close();
    QVERIFY(doc.openExistingInProject(dir.path(), "local"));
    QCOMPARE(doc.path(), f.fileName());
    QCOMPARE(doc.tier(), QString("local-override"));
  }

  void the_deny_lists_offered_are_the_engines_with_their_titles() {
    paddock::gui::AppPaths::setExecutableDir(QString::fromStdString(paddock::test::build_bin()));
    LayerDocument doc;
    const QVariantList lists = doc.denyLists();
    QCOMPARE(lists.size(), qsizetype(paddock::deny_list_names().size()));
    QMap<QString, QString> titles;
    for (const QVariant& v : lists) titles[v.toMap().value("name").toString()] = v.toMap().value("title").toString();
    QCOMPARE(titles.value("aws"), QString("AWS credentials"));
    QCOMPARE(titles.value("ssh"), QString("SSH keys and config"));
  }

  void undo_walks_back_through_unsaved_edits() {
    LayerDocument doc;
    QTemporaryDir dir;
    QVERIFY(doc.createInProject(dir.path(), "local"));
    const QString original = doc.text();
    QVERIFY(doc.addItem("filesystem", "allow_write", "$PROJECT/out"));
    QVERIFY(doc.addItem("filesystem", "allow_write", "$PROJECT/tmp"));
    doc.undo();
    QCOMPARE(doc.list("filesystem", "allow_write"), QStringList{"$PROJECT/out"});
    doc.undo();
    QCOMPARE(doc.text(), original);
    QVERIFY(!doc.canUndo());
    QVERIFY(doc.path().endsWith("/.paddock/local.yaml"));
    QVERIFY(!QFile::exists(doc.path()));  // creating a layer writes nothing until Save
  }
};

QTEST_GUILESS_MAIN(YamlTextEditTest)
#include "yaml_text_edit_test.moc"
