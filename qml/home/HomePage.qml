// Home: the user's projects, and for the chosen one its agent, what that agent may touch (in
// plain words) and one primary Launch action, with this run's options behind it.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Paddock

Pane {
    id: page
    required property Workspace workspace
    required property PolicyComposer composer
    required property Launcher launcher
    // Undecided audit findings per project: the card's line (docs/audit.md).
    property AuditInbox auditInbox: null
    signal addProjectRequested()
    signal customizeRequested()
    signal openSessionRequested(string dir)
    signal auditRequested(string dir)
    signal approveRequested(string file)
    padding: 16

    CustomAgentDialog {
        id: customAgentDialog
        workspace: page.workspace
    }
    // Every other card's line, evaluated off the UI thread and kept; the chosen project's card
    // reads the live summary. Coming back to Home (after Customize, say) evaluates them again.
    ProjectSummaries {
        id: cardSummaries
    }
    onVisibleChanged: if (visible) cardSummaries.refresh()
    // The agent chosen for a project (projectAgents is a property, so a card follows a change
    // at once), else the current one.
    function agentOf(path) {
        return page.workspace.projectAgents[path] || page.workspace.currentAgent
    }
    function agentPresetOf(path) {
        const agents = page.workspace.agents
        return agents.presetAt(agents.indexOfName(page.agentOf(path)))
    }

    ColumnLayout {
        anchors.fill: parent
        spacing: 8

        // What keeps the sandbox from running on this machine, before a launch fails on
        // it: the cause and its fix, as `paddock doctor` says them, and the other way
        // out, chosen by the user in Settings, never taken for them.
        DoctorModel {
            id: kernelCheck
            Component.onCompleted: refresh()
        }
        Frame {
            objectName: "sandboxUnavailable"
            Layout.fillWidth: true
            visible: kernelCheck.refusals.length > 0 && page.workspace.linuxTier !== "landlock"
            ColumnLayout {
                anchors.fill: parent
                Label {
                    Layout.fillWidth: true
                    wrapMode: Text.Wrap
                    font.bold: true
                    text: qsTr("The sandbox cannot run on this machine")
                }
                Label {
                    Layout.fillWidth: true
                    wrapMode: Text.Wrap
                    text: kernelCheck.refusals.join("\n")
                }
                Label {
                    Layout.fillWidth: true
                    wrapMode: Text.Wrap
                    opacity: 0.8
                    text: qsTr("In the app, the other way is Settings, Linux sandbox: \"Landlock and seccomp only\".")
                }
            }
        }
        Label {
            objectName: "landlockTierNote"
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            opacity: 0.8
            visible: page.workspace.linuxTier === "landlock"
            text: qsTr("Launches use the Landlock and seccomp tier, which you chose in Settings: fewer "
                       + "guarantees than the full sandbox (docs/capabilities.md).")
        }

        RowLayout {
            Layout.fillWidth: true
            Layout.fillHeight: true
            spacing: 16

            // Projects
            ColumnLayout {
                Layout.preferredWidth: Math.max(220, Math.min(300, page.width * 0.26))
                Layout.maximumWidth: 300
                Layout.fillHeight: true
                spacing: 8

                RowLayout {
                    Layout.fillWidth: true
                    Label {
                        Layout.fillWidth: true
                        text: qsTr("Projects")
                        font.pixelSize: 20
                        font.bold: true
                    }
                    Button {
                        objectName: "addProjectButton"
                        text: qsTr("Add…")
                        highlighted: page.workspace.projects.count === 0
                        onClicked: page.addProjectRequested()
                        ToolTip.visible: hovered
                        ToolTip.text: qsTr("Choose a project folder (or drop one on the window)")
                    }
                }
                Label {
                    objectName: "workspaceError"
                    Layout.fillWidth: true
                    Layout.preferredWidth: 1  // wraps: its width comes from the layout
                    visible: text.length > 0
                    text: page.workspace.errorString.length > 0 ? page.workspace.errorString
                        : page.workspace.projects.status === ModelStatus.Error ? page.workspace.projects.errorString : ""
                    color: "#c62828"
                    wrapMode: Text.Wrap
                }
                Label {
                    Layout.fillWidth: true
                    Layout.preferredWidth: 1  // wraps: its width comes from the layout
                    visible: page.workspace.projects.count === 0
                    wrapMode: Text.Wrap
                    opacity: 0.8
                    text: qsTr("Add the folder of a project you want an AI agent to work on: click “Add…” or drop the "
                               + "folder on this window.")
                }
                ListView {
                    id: projectList
                    objectName: "projectList"
                    Layout.fillWidth: true
                    Layout.fillHeight: true
                    clip: true
                    spacing: 4
                    model: page.workspace.projects
                    keyNavigationEnabled: true
                    ScrollBar.vertical: ScrollBar {}
                    delegate: ItemDelegate {
                        id: card
                        required property int index
                        required property string path
                        required property string name
                        required property bool exists
                        width: projectList.width
                        highlighted: path === page.workspace.currentProject
                        onClicked: page.workspace.currentProject = path
                        contentItem: ColumnLayout {
                            spacing: 1
                            Label {
                                Layout.fillWidth: true
                                text: card.name
                                font.bold: true
                                elide: Text.ElideRight
                            }
                            Label {
                                objectName: "cardAgent"
                                Layout.fillWidth: true
                                text: card.exists ? page.agentOf(card.path) : qsTr("folder missing")
                                color: card.exists ? palette.windowText : "#c62828"
                                opacity: 0.75
                                font.pixelSize: 12
                                elide: Text.ElideRight
                            }
                            Label {
                                objectName: "cardSummary"
                                Layout.fillWidth: true
                                visible: card.exists && text.length > 0
                                text: !card.exists ? ""
                                    // (generation and revision: the bindings' dependencies on a new result)
                                    : card.highlighted && page.composer.status === ModelStatus.Ready && page.composer.generation >= 0
                                        ? page.composer.summary.cardLine(card.path)
                                        : cardSummaries.revision >= 0 ? cardSummaries.lineFor(card.path, page.agentPresetOf(card.path)) : ""
                                opacity: 0.75
                                font.pixelSize: 12
                                // The chosen project's line is read whole; the others are one line each.
                                wrapMode: card.highlighted ? Text.Wrap : Text.NoWrap
                                maximumLineCount: card.highlighted ? 6 : 1
                                elide: Text.ElideRight
                            }
                            Label {
                                objectName: "cardAudit"
                                Layout.fillWidth: true
                                visible: text.length > 0
                                text: page.auditInbox && page.auditInbox.revision >= 0 ? page.auditInbox.projectLine(card.path) : ""
                                color: "#c62828"
                                font.pixelSize: 12
                                wrapMode: card.highlighted ? Text.Wrap : Text.NoWrap
                                maximumLineCount: card.highlighted ? 3 : 1
                                elide: Text.ElideRight
                            }
                        }
                    }
                }
            }

            Rectangle {
                Layout.fillHeight: true
                Layout.preferredWidth: 1
                color: palette.mid
            }

            // The chosen project
            ScrollView {
                id: scroll
                Layout.fillWidth: true
                // Its implicit width follows its content, which follows its width: not a layout input.
                Layout.preferredWidth: 1
                Layout.fillHeight: true
                contentWidth: availableWidth
                clip: true
                visible: page.workspace.currentProject.length > 0

                ColumnLayout {
                    width: scroll.availableWidth
                    spacing: 12

                    ColumnLayout {
                        Layout.fillWidth: true
                        spacing: 2
                        Label {
                            Layout.fillWidth: true
                            text: page.workspace.currentProject.split("/").pop()
                            font.pixelSize: 22
                            font.bold: true
                            elide: Text.ElideRight
                        }
                        PathLabel {
                            Layout.fillWidth: true
                            text: page.workspace.currentProject
                        }
                    }


                    RowLayout {
                        Layout.fillWidth: true
                        spacing: 8
                        Label {
                            text: qsTr("Agent")
                        }
                        ComboBox {
                            id: agentBox
                            objectName: "agentBox"
                            Layout.preferredWidth: 240
                            model: page.workspace.agents
                            textRole: "name"
                            valueRole: "custom"
                            currentIndex: page.workspace.agents.indexOfName(page.workspace.currentAgent)
                            onActivated: function(index) { page.workspace.currentAgent = textAt(index) }
                            delegate: ItemDelegate {
                                id: agentItem
                                required property int index
                                required property string name
                                required property string command
                                required property bool detected
                                required property bool custom
                                width: agentBox.width
                                text: name + (agentItem.custom ? "  (" + agentItem.command + ")"
                                                               : agentItem.detected ? "" : qsTr("  — not installed"))
                                opacity: agentItem.detected ? 1.0 : 0.6
                                highlighted: agentBox.highlightedIndex === agentItem.index
                            }
                        }
                        Button {
                            text: qsTr("Other command…")
                            onClicked: customAgentDialog.open()
                        }
                        // A command the user added can be taken off the list again.
                        Button {
                            objectName: "removeAgentButton"
                            text: qsTr("Remove")
                            visible: agentBox.currentValue === true
                            onClicked: page.workspace.removeCustomAgent(page.workspace.currentAgent)
                            ToolTip.visible: hovered
                            ToolTip.text: qsTr("Take this command off the agent list (nothing else is changed)")
                        }
                        Item {
                            Layout.fillWidth: true
                        }
                    }

                    // What an earlier session left here for a tool on this machine to run, and where to
                    // decide it.
                    RowLayout {
                        Layout.fillWidth: true
                        visible: auditLine.text.length > 0
                        Label {
                            id: auditLine
                            objectName: "homeAudit"
                            Layout.fillWidth: true
                            text: page.auditInbox && page.auditInbox.revision >= 0
                                  ? page.auditInbox.projectLine(page.workspace.currentProject) : ""
                            color: "#c62828"
                            wrapMode: Text.Wrap
                        }
                        Button {
                            objectName: "homeAuditButton"
                            text: qsTr("Decide…")
                            onClicked: page.auditRequested(page.auditInbox.projectSession(page.workspace.currentProject))
                        }
                    }

                    CheckBox {
                        objectName: "reviewCheck"
                        text: qsTr("Review changes before they reach the project")
                        checked: page.workspace.currentReview
                        onToggled: page.workspace.currentReview = checked
                        ToolTip.visible: hovered
                        ToolTip.delay: 600
                        ToolTip.text: qsTr("The agent works on a copy of the project. Its changes wait in the session's "
                                           + "Review tab until you apply them; what your tools would run is shown apart.")
                    }

                    LaunchPanel {
                        Layout.fillWidth: true
                        launcher: page.launcher
                        composer: page.composer
                        onOpenSessionRequested: (dir) => page.openSessionRequested(dir)
                        onApproveRequested: (file) => page.approveRequested(file)
                    }

                    RowLayout {
                        Layout.fillWidth: true
                        Layout.topMargin: 8
                        Label {
                            Layout.fillWidth: true
                            text: qsTr("What the agent may touch")
                            font.pixelSize: 18
                            font.bold: true
                        }
                        Button {
                            objectName: "customizeButton"
                            text: qsTr("Customize…")
                            onClicked: page.customizeRequested()
                            ToolTip.visible: hovered
                            ToolTip.text: qsTr("Layers, the YAML editor, the full IR, diff and capabilities")
                        }
                    }
                    PolicySummaryView {
                        objectName: "policySummary"
                        Layout.fillWidth: true
                        composer: page.composer
                    }
                }
            }

            StatusPlaceholder {
                Layout.fillWidth: true
                Layout.preferredWidth: 1
                Layout.fillHeight: true
                visible: page.workspace.currentProject.length === 0
                status: ModelStatus.Ready
                empty: true
                emptyText: qsTr("No project yet. Add a project folder to see what an agent would be allowed to do "
                                + "there, and launch it.")
            }
        }
    }
}
