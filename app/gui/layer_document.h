// One layer file open in the editor: the YAML text (the one source of truth), the form view's
// reads and minimal edits of it, undo of unsaved edits, and atomic saves. The live parse error
// (file:line:col) comes from the engine through PolicyComposer, which evaluates this text as an
// overlay on every edit.
//
// The file is someone else's too (the violation inbox, `paddock approve`'s user in a shell, an
// editor): the document keeps the bytes it loaded and watches the file. A change on disk is
// reloaded at once while there are no unsaved edits; with unsaved edits it is flagged
// (changedOnDisk) and save() refuses until the user reloads, so a save never writes text older
// than the file over it. Compared are the bytes, not the modification time.
#pragma once

#include <QByteArray>
#include <QFileSystemWatcher>
#include <QObject>
#include <QStringList>
#include <QtQml/qqmlregistration.h>

namespace paddock::gui {

class LayerDocument : public QObject {
  Q_OBJECT
  QML_ELEMENT
  Q_PROPERTY(QString path READ path NOTIFY pathChanged)
  Q_PROPERTY(QString tier READ tier NOTIFY pathChanged)
  Q_PROPERTY(QString text READ text WRITE setText NOTIFY textChanged)
  Q_PROPERTY(bool loaded READ loaded NOTIFY pathChanged)
  Q_PROPERTY(bool existsOnDisk READ existsOnDisk NOTIFY savedChanged)
  Q_PROPERTY(bool dirty READ dirty NOTIFY textChanged)
  Q_PROPERTY(bool canUndo READ canUndo NOTIFY textChanged)
  Q_PROPERTY(int revision READ revision NOTIFY textChanged)
  Q_PROPERTY(QString errorString READ errorString NOTIFY errorStringChanged)
  // The file on disk is no longer what this document loaded or saved, and there are unsaved
  // edits: Save refuses; reload() shows the file as it is now.
  Q_PROPERTY(bool changedOnDisk READ changedOnDisk NOTIFY diskStateChanged)
  // One line about the last change seen on disk ("reloaded: ... changed on disk"); "" after the
  // next edit, save or open.
  Q_PROPERTY(QString diskNotice READ diskNotice NOTIFY diskStateChanged)

 public:
  explicit LayerDocument(QObject* parent = nullptr);

  QString path() const { return path_; }
  QString tier() const { return tier_; }
  QString text() const { return text_; }
  void setText(const QString& text);
  bool loaded() const { return !path_.isEmpty(); }
  bool existsOnDisk() const { return exists_; }
  bool dirty() const { return text_ != saved_; }
  bool canUndo() const { return !undo_.isEmpty(); }
  int revision() const { return revision_; }
  QString errorString() const { return error_; }
  bool changedOnDisk() const { return conflict_; }
  QString diskNotice() const { return notice_; }

  // Opens a layer file (a missing file opens as a new, unsaved layer with a template).
  Q_INVOKABLE bool open(const QString& path, const QString& tier);
  // Opens the file only if it exists (a project's default layer); false leaves the editor as is.
  Q_INVOKABLE bool openExisting(const QString& path, const QString& tier);
  // Opens (creating the text, not the file) `<project>/.paddock/policy.yaml` or `local.yaml`.
  Q_INVOKABLE bool createInProject(const QString& project, const QString& kind);
  // The project's layer file of `kind` (repository or local; the engine's tier_file), or, for an
  // empty project, its name relative to the project as the app shows it; "" for another kind.
  Q_INVOKABLE QString projectFile(const QString& project, const QString& kind) const;
  // Opens the project's layer of `kind` where it exists on disk (openExisting).
  Q_INVOKABLE bool openExistingInProject(const QString& project, const QString& kind);
  // The built-in lists filesystem.deny_preset accepts, in the engine's order: [{name, title}],
  // the title from the list's file (resources/lists), the name alone where it does not read.
  Q_INVOKABLE QVariantList denyLists() const;
  Q_INVOKABLE void close();
  Q_INVOKABLE bool save();
  Q_INVOKABLE void undo();
  Q_INVOKABLE void revert();
  // Reads the file again as it is on disk; unsaved edits are dropped.
  Q_INVOKABLE bool reload();
  // Compares the file on disk with what was loaded: reloads it when there are no unsaved edits,
  // flags changedOnDisk when there are. true: the file is what was loaded. The watcher calls it;
  // so does a page that is shown (a watcher can miss a change on some file systems).
  Q_INVOKABLE bool checkDisk();

  // Form view: reads and minimal edits of `section.key`.
  Q_INVOKABLE QStringList list(const QString& section, const QString& key) const;
  Q_INVOKABLE bool setList(const QString& section, const QString& key, const QStringList& values);
  Q_INVOKABLE bool addItem(const QString& section, const QString& key, const QString& value);
  Q_INVOKABLE bool removeItem(const QString& section, const QString& key, int index);
  Q_INVOKABLE QString scalar(const QString& section, const QString& key) const;
  Q_INVOKABLE bool setScalar(const QString& section, const QString& key, const QString& value);

  static QString newLayerTemplate(const QString& kind);

 signals:
  void pathChanged();
  void textChanged();
  void savedChanged();
  void errorStringChanged();
  void diskStateChanged();
  void saved(const QString& path);

 private:
  void setError(const QString& e);
  void replaceText(const QString& text);
  void setDiskState(bool conflict, const QString& notice);
  void watch();
  // The file's bytes now; false when it exists but cannot be read (error set).
  struct Disk {
    bool exists = false;
    QByteArray bytes;
    bool operator==(const Disk&) const = default;
  };
  bool readDisk(Disk& out) const;

  QString path_;
  QString tier_;
  QString text_;
  QString saved_;
  bool exists_ = false;
  QStringList undo_;
  int revision_ = 0;
  QString error_;
  Disk disk_;              // what was loaded or last saved
  bool conflict_ = false;  // changed on disk under unsaved edits
  QString notice_;
  QFileSystemWatcher watcher_;
};

}  // namespace paddock::gui
