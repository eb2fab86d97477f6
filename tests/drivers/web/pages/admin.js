// The admin index's behaviour, shared by both versions of it: following a model's link opens
// the same page with ?opened=<the link's path>, and the page says which one it was.
const opened = new URLSearchParams(location.search).get("opened");
if (opened) document.querySelector('[role="status"]').textContent = `Opened ${opened}`;
