// The git side of a review's change set (docs/review.md, "Commits"): what each changed index adds
// (gitlinks), and the branches the agent moved, with their commits and whether each is a
// fast-forward of the ref the host still has. Read from the files, never by running git.
#pragma once

#include <map>
#include <string>

#include "engine/review/change.h"
#include "engine/review/classify.h"
#include "platform/review/review_session.h"

namespace paddock::platform {

// Facts for every changed .git/index of the set: the gitlinks it adds to the host's index.
std::map<std::string, review::ChangeFacts> git_index_facts(const ReviewSession& s, const review::ChangeSet& set);

// A commit offer for every ref the session moved (GitRole kRef); a ref that is not a
// fast-forward of the host's gets the flag not-fast-forward, and a ref whose host value may have
// moved meanwhile (packed-refs changed) a conflict.
void add_commit_offers(const ReviewSession& s, review::ChangeSet& set);

}  // namespace paddock::platform
