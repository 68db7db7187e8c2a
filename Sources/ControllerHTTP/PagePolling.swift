/// The loop both live pages end their script with: fetch `path`, hand the JSON to the page's
/// `render`, say in `#live` when it last answered (or that `source` did not), and mark
/// `<body data-live="yes">` once a poll has answered, for a headless browser to see the script ran.
enum PagePolling {
    /// Pages/page-polling.js, its holes filled.
    static func loop(path: String, everyMilliseconds milliseconds: Int, source: String) -> String {
        PageTemplate.fill(
            PageTemplate.text(PackageResources.page_polling_js),
            ["path": .text(path), "milliseconds": .text(String(milliseconds)), "source": .text(source)],
            file: "page-polling.js")
    }
}
