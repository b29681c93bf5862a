const { https } = require("follow-redirects");

// Downloads a release artifact through the corporate proxy, following CDN redirects.
function download(url, headers) {
  return new Promise((resolve, reject) => {
    https
      .get(url, { headers, maxRedirects: 5 }, (res) => {
        const chunks = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () => resolve(Buffer.concat(chunks)));
      })
      .on("error", reject);
  });
}

module.exports = { download };
