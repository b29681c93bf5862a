const express = require("express");

const app = express();

// Two parameters in one segment: the route shape CVE-2024-45296 is about.
app.get("/files/:name-:revision", (req, res) => res.json(req.params));

module.exports = { app };
