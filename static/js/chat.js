// The chat page's behaviour on top of htmx: Enter sends, replies stream in over server-sent
// events, and the final rendered turn (with its "used N memories") replaces the streamed text.
// Without this file every form still works as a plain POST.
(function () {
  "use strict";

  // Set once per page load; a full reload resets it (the browser tests check that it survives).
  window.chatPageLoadedAt = window.chatPageLoadedAt || Date.now();

  function scrollToEnd(el) {
    if (el && el.scrollIntoView) el.scrollIntoView({ block: "end" });
  }

  // Swap in the server-rendered turn, then let the notices re-check (a job may have been queued).
  function showFinalTurn(placeholder, url) {
    var turn = placeholder.closest(".turn");
    if (!turn || !turn.isConnected) return;
    htmx.ajax("GET", url || placeholder.dataset.turnUrl, { target: turn, swap: "outerHTML" }).then(function () {
      htmx.trigger(document.body, "chat-refresh");
      scrollToEnd(document.getElementById(turn.id));
      checkState();
    });
  }

  function stream(placeholder) {
    placeholder.dataset.started = "1";
    placeholder.classList.add("streaming");
    var text = placeholder.querySelector(".streamed");
    var source = new EventSource(placeholder.dataset.streamUrl);
    var finished = false;

    function finish(url) {
      if (finished) return;
      finished = true;
      // Closed before the server hangs up, so EventSource does not reconnect and ask again.
      source.close();
      showFinalTurn(placeholder, url);
    }

    source.addEventListener("delta", function (event) {
      placeholder.classList.add("receiving");
      // textContent: the model's text is never parsed as HTML.
      text.textContent += JSON.parse(event.data).text;
      scrollToEnd(placeholder);
    });
    source.addEventListener("done", function (event) { finish(JSON.parse(event.data).url); });
    source.addEventListener("failed", function (event) { finish(JSON.parse(event.data).url); });
    // A dropped connection: show the turn as the server has it (pending, with its button).
    source.onerror = function () { finish(null); };
  }

  // Only after a page load or a POST the user made (send, retry): a turn re-rendered after a
  // failed stream must not start again by itself, or a broken connection would loop.
  function startStreams() {
    document.querySelectorAll("[data-stream-url]:not([data-started])").forEach(stream);
  }

  document.addEventListener("keydown", function (event) {
    var field = event.target;
    if (event.key !== "Enter" || event.shiftKey || event.isComposing) return;
    if (!field.matches || !field.matches("#composer textarea")) return;
    event.preventDefault();
    var max = parseInt(field.dataset.max, 10);
    if (field.value.length > max) {
      // Over the limit Send is disabled; Enter says why, as the server would (never cut, never echoed).
      var error = document.getElementById("composer-error");
      var count = document.getElementById("composer-count");
      if (error && count) {
        error.textContent = words(count.dataset.tooLong, field.value.length, max);
        error.dataset.overLimit = "1";
      }
      return;
    }
    if (field.value.trim()) field.form.requestSubmit();
  });

  // A 400 from the composer carries the form again with the reason (HX-Retarget / HX-Reswap).
  document.body.addEventListener("htmx:beforeSwap", function (event) {
    if (event.detail.xhr.status === 400 && event.detail.xhr.getResponseHeader("HX-Retarget")) {
      event.detail.shouldSwap = true;
      event.detail.isError = false;
    }
  });

  document.body.addEventListener("htmx:afterRequest", function (event) {
    var form = event.detail.elt;
    // A refusal (a 400 swapped in as the reason, see above) keeps what was typed in the box.
    if (form.id === "composer" && event.detail.successful && event.detail.xhr.status < 400) {
      form.reset();
      var error = document.getElementById("composer-error");
      if (error) error.textContent = "";
    }
  });

  document.body.addEventListener("htmx:afterSwap", function (event) {
    updateCount(composerField());
    if (event.detail.target && event.detail.target.id === "pane" && composerField()) composerField().focus();
    if (event.detail.requestConfig && event.detail.requestConfig.verb === "post") {
      checkState();  // the first message names the conversation
      startStreams();
      var messages = document.getElementById("messages");
      if (messages) scrollToEnd(messages.lastElementChild);
    }
  });

  // A conversation opened from the list: mark it as the current one.
  document.body.addEventListener("htmx:pushedIntoHistory", function () {
    document.querySelectorAll(".chat-list a").forEach(function (link) {
      if (link.getAttribute("href") === location.pathname) link.setAttribute("aria-current", "page");
      else link.removeAttribute("aria-current");
    });
  });

  // The character counter: the limit is stated, and going over it is said plainly (never cut).
  function updateCount(field) {
    var count = document.getElementById("composer-count");
    if (!field || !count) return;
    var max = parseInt(field.dataset.max, 10);
    var length = field.value.length;
    var over = length > max;
    count.textContent = words(over ? count.dataset.over : count.dataset.count, length, max);
    var error = document.getElementById("composer-error");
    if (!over && error && error.dataset.overLimit) {
      error.textContent = "";
      delete error.dataset.overLimit;
    }
    count.classList.toggle("error", over);
    count.classList.toggle("muted", !over);
    field.setAttribute("aria-invalid", over ? "true" : "false");
    var send = field.form && field.form.querySelector("button[type=submit]");
    if (send) send.disabled = over;
  }
  document.addEventListener("input", function (event) {
    if (event.target.matches && event.target.matches("#composer textarea")) updateCount(event.target);
  });

  // The page's words for the counter (data-* of #composer-count, in the page's language).
  function words(template, length, max) {
    return template
      .replace("%(length)s", length.toLocaleString())
      .replace("%(limit)s", max.toLocaleString())
      .replace("%(over)s", (length - max).toLocaleString());
  }

  function composerField() { return document.querySelector("#composer textarea"); }

  // Another tab (or device) may add messages or rename the conversation: a light poll notices.
  function knownLast() {
    var last = 0;
    document.querySelectorAll("#messages .turn[data-last]").forEach(function (turn) {
      last = Math.max(last, parseInt(turn.dataset.last, 10) || 0);
    });
    return last;
  }
  function checkState() {
    var pane = document.getElementById("pane");
    if (!pane || !pane.dataset.stateUrl || document.hidden) return;
    fetch(pane.dataset.stateUrl, { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (state) {
        if (!state) return;
        var heading = document.getElementById("conversation-title");
        if (heading && heading.textContent !== state.title) {
          heading.textContent = state.title;
          document.title = state.title + " · Memory";
          var current = document.querySelector('.chat-list a[aria-current="page"]');
          if (current) current.textContent = state.title;
        }
        // This tab's own reply is on its way: its final turn brings the news.
        if (document.querySelector("[data-stream-url][data-started]")) return;
        if (state.last > knownLast()) {
          htmx.ajax("GET", location.pathname, { target: "#messages", select: "#messages", swap: "outerHTML" });
        }
      })
      .catch(function () { /* offline for a moment: the next poll tries again */ });
  }
  setInterval(checkState, 4000);
  document.addEventListener("visibilitychange", checkState);

  startStreams();
  updateCount(composerField());
  var messages = document.getElementById("messages");
  if (messages && location.hash === "") scrollToEnd(messages.lastElementChild);
})();
