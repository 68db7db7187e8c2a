async function poll() {
  try {
    const response = await fetch("/*{path*//status/*}*/", { cache: "no-store" });
    if (!response.ok) throw new Error("HTTP " + response.status);
    render(await response.json());
    document.body.dataset.live = "yes";
    $("live").textContent = "live · " + new Date().toLocaleTimeString();
    $("live").className = "live";
  } catch (error) {
    $("live").textContent = "no answer from /*{source*/the daemon/*}*/ (" + error.message + ")";
    $("live").className = "live bad";
  } finally {
    setTimeout(poll, /*{milliseconds*/500/*}*/);
  }
}
poll();
