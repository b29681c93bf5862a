const semver = require("semver");

// Orders release tags newest first, skipping anything that is not a valid version.
function sortTags(tags) {
  return tags.filter((t) => semver.valid(t)).sort(semver.rcompare);
}

module.exports = { sortTags };
