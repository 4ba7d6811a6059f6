// Dates in the reader's language and time zone. The server writes a <time data-local="date"> in
// its own words, the day in UTC (what a page without script shows); the browser words it again
// from its datetime, in the page's language and the reader's zone, as the chat times its lines
// (room/chat.js): a game finished at 22:30 UTC is dated the next day in Sydney.

import { language } from "./i18n.js";

const date = new Intl.DateTimeFormat(language, { dateStyle: "medium" });

for (const element of document.querySelectorAll("time[datetime][data-local=date]")) {
  const moment = new Date(element.dateTime);
  if (!Number.isNaN(moment.getTime())) element.textContent = date.format(moment);
}
