/// The loop both live pages end their script with: fetch `path`, hand the JSON to the page's
/// `render`, say in `#live` when it last answered (or that `source` did not), and mark
/// `<body data-live="yes">` once a poll has answered, for a headless browser to see the script ran.
enum PagePolling {
    static func loop(path: String, everyMilliseconds milliseconds: Int, source: String) -> String {
        """
        async function poll() {
          try {
            const response = await fetch("\(path)", { cache: "no-store" });
            if (!response.ok) throw new Error("HTTP " + response.status);
            render(await response.json());
            document.body.dataset.live = "yes";
            $("live").textContent = "live · " + new Date().toLocaleTimeString();
            $("live").className = "live";
          } catch (error) {
            $("live").textContent = "no answer from \(source) (" + error.message + ")";
            $("live").className = "live bad";
          } finally {
            setTimeout(poll, \(milliseconds));
          }
        }
        poll();
        """
    }
}
