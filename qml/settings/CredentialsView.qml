// Credentials (docs/credentials.md): the keys the credential broker adds to agents' requests,
// stored on this computer and never given to an agent. Each row says which host the key is sent
// to, which agents use it and when a session last did; a key can be added, replaced or removed.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Paddock

GroupBox {
    id: box
    title: qsTr("Credentials")

    CredentialsModel {
        id: credentials
        onFinished: (ok, message) => {
            status.text = message
            status.color = ok ? palette.windowText : "#c0392b"
            if (ok) {
                keyField.text = ""
                form.visible = false
            }
        }
    }

    ColumnLayout {
        anchors.fill: parent
        spacing: 8

        Label {
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            text: qsTr("Agents get a stand-in and an address on their own loopback; Paddock adds the real key "
                       + "to their requests and sends them only to the key's host. No process in the sandbox "
                       + "can read it.")
        }
        Label {
            objectName: "credentialStore"
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            opacity: 0.7
            font.pixelSize: 12
            text: qsTr("Key store: %1").arg(credentials.storeDetail)
        }

        StatusPlaceholder {
            objectName: "credentialsPlaceholder"
            Layout.fillWidth: true
            Layout.preferredHeight: implicitHeight
            status: credentials.status
            errorString: credentials.errorString
            empty: credentials.count === 0
            emptyText: qsTr("No credentials stored. Add one to let an agent use it without seeing it.")
        }

        Repeater {
            objectName: "credentialRows"
            model: credentials
            delegate: RowLayout {
                id: row
                required property string name
                required property string upstream
                required property string backend
                required property string agents
                required property string lastUsed
                Layout.fillWidth: true
                ColumnLayout {
                    Layout.fillWidth: true
                    spacing: 0
                    Label {
                        text: "<b>" + row.name + "</b>  →  " + row.upstream
                        textFormat: Text.StyledText
                    }
                    Label {
                        Layout.fillWidth: true
                        elide: Text.ElideRight
                        opacity: 0.7
                        font.pixelSize: 12
                        text: qsTr("Used by %1 · kept in the %2 · %3").arg(row.agents).arg(row.backend)
                              .arg(row.lastUsed.length > 0 ? qsTr("last used %1").arg(row.lastUsed) : qsTr("never used"))
                    }
                }
                Button {
                    text: qsTr("Replace…")
                    enabled: !credentials.busy
                    onClicked: {
                        nameField.editText = row.name
                        upstreamField.text = row.upstream
                        form.replacing = true
                        form.visible = true
                        keyField.forceActiveFocus()
                    }
                }
                Button {
                    objectName: "removeCredential"
                    text: qsTr("Remove")
                    enabled: !credentials.busy
                    onClicked: credentials.remove(row.name)
                }
            }
        }

        Button {
            objectName: "addCredential"
            text: qsTr("Add a credential…")
            visible: !form.visible
            onClicked: {
                form.replacing = false
                nameField.editText = ""
                upstreamField.text = ""
                form.visible = true
            }
        }

        GridLayout {
            id: form
            objectName: "credentialForm"
            property bool replacing: false
            visible: false
            Layout.fillWidth: true
            columns: 2
            columnSpacing: 12
            Label { text: qsTr("Name") }
            ComboBox {
                id: nameField
                objectName: "credentialName"
                Layout.fillWidth: true
                editable: true
                model: credentials.knownNames
                enabled: !form.replacing
                onEditTextChanged: if (!form.replacing) upstreamField.placeholderText = credentials.upstreamFor(editText)
            }
            Label { text: qsTr("Host") }
            TextField {
                id: upstreamField
                objectName: "credentialUpstream"
                Layout.fillWidth: true
                ToolTip.visible: hovered
                ToolTip.text: qsTr("The one host this key is ever sent to (HOST or HOST:PORT)")
            }
            Label { text: qsTr("Key") }
            TextField {
                id: keyField
                objectName: "credentialKey"
                Layout.fillWidth: true
                echoMode: TextInput.Password
                placeholderText: qsTr("Paste the key; it is not shown")
            }
            Item { width: 1 }
            RowLayout {
                Button {
                    objectName: "saveCredential"
                    text: form.replacing ? qsTr("Replace") : qsTr("Store")
                    enabled: !credentials.busy && nameField.editText.length > 0 && keyField.text.length > 0
                    onClicked: credentials.store(nameField.editText, upstreamField.text, keyField.text, form.replacing)
                }
                Button {
                    text: qsTr("Cancel")
                    onClicked: {
                        keyField.text = ""
                        form.visible = false
                    }
                }
            }
        }

        Label {
            id: status
            objectName: "credentialStatus"
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            visible: text.length > 0
        }
    }
}
