// The orders page's behaviour, shared by both versions of it: the search form submits its
// fields in the URL (GET), the table shows the orders that match, a row's Details button says
// which order it is. Each page gives a row's markup in <template id="order-row">, its cells
// marked data-fill="id|customer|status".
const ORDERS = [
  { id: "1041", customer: "Grace Hopper", status: "open" },
  { id: "1042", customer: "Ada Lovelace", status: "shipped" },
  { id: "1043", customer: "Ada Byron", status: "open" },
  { id: "1044", customer: "Alan Turing", status: "shipped" },
  { id: "1045", customer: "Ada Yonath", status: "shipped" },
];
const params = new URLSearchParams(location.search);
const query = params.get("q") || "";
const status = params.get("status") || "";
document.querySelector('input[name="q"]').value = query;
document.querySelector('select[name="status"]').value = status;
const shown = ORDERS.filter(
  (order) => order.customer.toLowerCase().includes(query.toLowerCase()) && (!status || order.status === status),
);
const rows = document.querySelector("tbody");
const template = document.querySelector("#order-row");
const detail = document.querySelector(".order-detail");
for (const order of shown) {
  const row = template.content.cloneNode(true);
  for (const cell of row.querySelectorAll("[data-fill]")) cell.textContent = order[cell.dataset.fill];
  row.querySelector("a").href = `#order-${order.id}`;
  row.querySelector("button").addEventListener("click", () => {
    detail.textContent = `Order ${order.id} · ${order.customer} · ${order.status}`;
  });
  rows.append(row);
}
document.querySelector('[role="status"]').textContent = `${shown.length} orders`;
