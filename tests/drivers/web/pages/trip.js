// The trip planner's behaviour, shared by both versions of it: a button says what it did to the
// item it belongs to (the nearest element with data-item), and a form books its stay for the
// nights typed into it, without leaving the page.
const status = document.querySelector('[role="status"]');
for (const button of document.querySelectorAll("button")) {
  button.addEventListener("click", (event) => {
    const item = button.closest("[data-item]").dataset.item;
    const form = button.closest("form");
    if (form) {
      event.preventDefault();
      status.textContent = `Booked ${item} for ${form.querySelector('input[name="nights"]').value} nights`;
    } else {
      status.textContent = `Added ${item}`;
    }
  });
}
