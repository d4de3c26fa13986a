// One layer file open in the editor: the YAML text (the one source of truth), the form view's
// reads and minimal edits of it, undo of unsaved edits, and atomic saves. The live parse error
// (file:line:col) comes from the engine through PolicyComposer, which evaluates this text as an
// overlay on every edit.
#pragma once

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

  // Opens a layer file (a missing file opens as a new, unsaved layer with a template).
  Q_INVOKABLE bool open(const QString& path, const QString& tier);
  // Opens the file only if it exists (a project's default layer); false leaves the editor as is.
  Q_INVOKABLE bool openExisting(const QString& path, const QString& tier);
  // Opens (creating the text, not the file) `<project>/.paddock/policy.yaml` or `local.yaml`.
  Q_INVOKABLE bool createInProject(const QString& project, const QString& kind);
  Q_INVOKABLE void close();
  Q_INVOKABLE bool save();
  Q_INVOKABLE void undo();
  Q_INVOKABLE void revert();

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
  void saved(const QString& path);

 private:
  void setError(const QString& e);
  void replaceText(const QString& text);

  QString path_;
  QString tier_;
  QString text_;
  QString saved_;
  bool exists_ = false;
  QStringList undo_;
  int revision_ = 0;
  QString error_;
};

}  // namespace paddock::gui
