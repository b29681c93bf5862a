const optimist = require("optimist");

// Reads the worker's command line.
function args(argv) {
  return optimist(argv).default("port", 8080).argv;
}

module.exports = { args };
