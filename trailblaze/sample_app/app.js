/*
 * Behaviour for the Trailblaze sample app. Plain script (no modules) so it
 * also works from file:// URLs. Each page's setup runs only when that page's
 * elements are present.
 */
(function () {
  "use strict";

  function byId(id) {
    return document.getElementById(id);
  }

  function queryParam(name) {
    return new URLSearchParams(window.location.search).get(name);
  }

  // ----- forms.html -----
  function setupForm(form) {
    var name = byId("name");
    var email = byId("email");
    var plan = byId("plan");
    var newsletter = byId("newsletter");
    var error = byId("form-error");
    var result = byId("result");

    form.addEventListener("submit", function (event) {
      event.preventDefault();
      if (name.value.trim() === "") {
        result.hidden = true;
        error.hidden = false;
        name.focus();
        return;
      }
      error.hidden = true;
      byId("result-name").textContent = "Name: " + name.value;
      byId("result-email").textContent = "Email: " + email.value;
      byId("result-plan").textContent = "Plan: " + plan.options[plan.selectedIndex].text;
      byId("result-newsletter").textContent = "Newsletter: " + (newsletter.checked ? "yes" : "no");
      result.hidden = false;
    });

    byId("clear").addEventListener("click", function () {
      form.reset();
      ["name", "email", "password", "comments"].forEach(function (id) {
        byId(id).value = "";
      });
      plan.value = "free";
      newsletter.checked = false;
      error.hidden = true;
      result.hidden = true;
    });
  }

  // ----- lists.html -----
  function setupList(list) {
    var total = parseInt(list.getAttribute("data-item-count"), 10) || 0;
    var filter = byId("filter");
    var count = byId("count");

    // One shared tooltip, moved into whichever item is hovered or focused.
    var tooltip = document.createElement("span");
    tooltip.id = "item-tooltip";
    tooltip.className = "tooltip";
    tooltip.setAttribute("role", "tooltip");
    tooltip.hidden = true;

    function showTooltip(li) {
      tooltip.textContent = "Details for " + li.getAttribute("data-item-name");
      li.appendChild(tooltip);
      li.firstChild.setAttribute("aria-describedby", tooltip.id);
      tooltip.hidden = false;
    }

    function hideTooltip(li) {
      if (tooltip.parentNode === li) {
        tooltip.hidden = true;
        li.firstChild.removeAttribute("aria-describedby");
      }
    }

    for (var n = 1; n <= total; n++) {
      var li = document.createElement("li");
      var link = document.createElement("a");
      link.href = "detail.html?item=" + n;
      link.textContent = "Item " + n;
      li.setAttribute("data-item-name", link.textContent);
      li.appendChild(link);
      li.addEventListener("mouseenter", function () { showTooltip(this); });
      li.addEventListener("mouseleave", function () { hideTooltip(this); });
      link.addEventListener("focus", function () { showTooltip(this.parentNode); });
      link.addEventListener("blur", function () { hideTooltip(this.parentNode); });
      list.appendChild(li);
    }

    function applyFilter() {
      var needle = filter.value.trim().toLowerCase();
      var shown = 0;
      Array.prototype.forEach.call(list.children, function (item) {
        var match = item.getAttribute("data-item-name").toLowerCase().indexOf(needle) !== -1;
        item.hidden = !match;
        if (match) shown++;
        if (!match) hideTooltip(item);
      });
      count.textContent = shown + (shown === 1 ? " item" : " items");
    }

    filter.addEventListener("input", applyFilter);
    applyFilter();
  }

  // ----- detail.html -----
  function setupDetail(title) {
    var item = queryParam("item");
    var text = byId("item-text");
    if (item !== null && /^\d+$/.test(item.trim()) && parseInt(item, 10) > 0) {
      var label = "Item " + parseInt(item, 10);
      title.textContent = label;
      text.textContent = "This is the detail page for " + label + ".";
      text.hidden = false;
    } else {
      title.textContent = "Unknown item";
      text.hidden = true;
    }
  }

  // ----- delayed.html -----
  function setupDelayed() {
    window.setTimeout(function () {
      var welcome = document.createElement("p");
      welcome.id = "welcome";
      welcome.textContent = "Welcome back!";
      byId("welcome-slot").appendChild(welcome);
    }, 800);

    var load = byId("load");
    var status = byId("status");
    var resultsSlot = byId("results-slot");
    load.addEventListener("click", function () {
      load.disabled = true;
      resultsSlot.textContent = "";
      status.textContent = "Loading\u2026";
      status.hidden = false;
      window.setTimeout(function () {
        status.textContent = "Data loaded";
        var ul = document.createElement("ul");
        ul.id = "results";
        ul.setAttribute("aria-label", "Results");
        ["Alpha", "Beta", "Gamma"].forEach(function (word) {
          var li = document.createElement("li");
          li.textContent = word;
          ul.appendChild(li);
        });
        resultsSlot.appendChild(ul);
        load.disabled = false;
      }, 1500);
    });

    var cont = byId("continue");
    byId("unlock").addEventListener("click", function () {
      window.setTimeout(function () { cont.disabled = false; }, 1000);
    });
    cont.addEventListener("click", function () {
      byId("continued").hidden = false;
    });

    byId("later").addEventListener("click", function () {
      window.setTimeout(function () {
        window.location.href = "about.html?from=delayed";
      }, 1000);
    });
  }

  // ----- about.html -----
  function setupAbout(from) {
    from.hidden = queryParam("from") !== "delayed";
  }

  // ----- products.html -----
  function setupProducts(selected) {
    document.querySelectorAll("li[data-product]").forEach(function (item) {
      item.addEventListener("click", function () {
        selected.textContent = "Selected: " + item.getAttribute("aria-label") + " (ID: " + item.getAttribute("data-product") + ")";
      });
    });
  }

  // ----- sign-in.html, account.html -----
  // The session is the tab's (sessionStorage): every trail's fresh browser context starts signed out.
  var PASSWORD = "sample-password";
  var SESSION_KEY = "sample-app-user";

  function setupSignIn(form) {
    var user = byId("user");
    var password = byId("password");
    var error = byId("sign-in-error");
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      if (user.value.trim() === "" || password.value !== PASSWORD) {
        error.hidden = false;
        return;
      }
      window.sessionStorage.setItem(SESSION_KEY, user.value.trim());
      window.location.href = "account.html";
    });
  }

  function setupAccount() {
    function show() {
      var signedIn = window.sessionStorage.getItem(SESSION_KEY);
      byId("signed-in").hidden = !signedIn;
      byId("signed-out").hidden = !!signedIn;
      byId("account-user").textContent = signedIn ? "Signed in as " + signedIn : "";
    }
    byId("sign-out").addEventListener("click", function () {
      window.sessionStorage.removeItem(SESSION_KEY);
      show();
    });
    show();
  }

  var form = byId("contact-form");
  if (form) setupForm(form);
  var list = byId("items");
  if (list) setupList(list);
  var title = byId("item-title");
  if (title) setupDetail(title);
  if (byId("delayed-page")) setupDelayed();
  var from = byId("from");
  if (from) setupAbout(from);
  var selected = byId("selected");
  if (selected) setupProducts(selected);
  var signIn = byId("sign-in-form");
  if (signIn) setupSignIn(signIn);
  if (byId("account-page")) setupAccount();
})();
