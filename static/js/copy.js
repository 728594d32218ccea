// "Copy" buttons of the tokens page: copy the text of the element named by data-copy. Without
// JavaScript (or clipboard access) the text stays selectable. The page gives the words in its
// language (data-copied, data-select).
document.addEventListener("click", (event) => {
  const button = event.target.closest("button[data-copy]");
  if (!button) return;
  const source = document.getElementById(button.dataset.copy);
  const text = source.value !== undefined ? source.value : source.textContent;
  navigator.clipboard.writeText(text).then(
    () => { button.textContent = button.dataset.copied || "Copied"; },
    () => { if (source.select) source.select(); button.textContent = button.dataset.select || "Select and copy"; },
  );
});
