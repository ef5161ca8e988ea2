"""The labelled multi-turn sales routing set: whole conversations, each turn with the decision seed 002's
table says is right. Run to (re)write ``routing_conversations.jsonl``; conversations alternate between
``dev`` (tune on it) and ``test`` (report on it), in the order written here, so both halves hold every kind.

Each line: ``id``, ``split``, ``topic``, ``lead_context`` (``timezone`` always; ``name``, ``email``,
``company`` when known) and 2-6 ``turns``, each ``{"text", "tool_arguments"?, "expect"}``. ``expect`` has
``decision``; ``tool`` for USE_TOOL, and for CLARIFY when it asks about one tool call (its missing
arguments, or the confirmation a contract needs); ``arguments`` for USE_TOOL (a subset the call must carry);
``source`` for RETRIEVE (the document that must answer).

The clock: every conversation happens on Monday 2 March 2026 at 09:00 in the lead's timezone. "tomorrow" is
2026-03-03, "Thursday" 2026-03-05, "Friday" 2026-03-06, "the 12th" 2026-03-12. Date-times are written as
local time in the lead's timezone, ``YYYY-MM-DDTHH:MM``; "next week" only ever gets a CLARIFY.

Labelling rules:

- RETRIEVE: a factual question one document answers (follow-ups such as "in transit too?" included), and
  questions about policies ("are annual plans refundable?"), which never escalate. The old 2022 price
  sheet (``pricing-2022``) is never the source: ``pricing`` is. A question no document answers ("do you
  have dark mode?") is a CLARIFY.
- REASON_ONLY: thanks, acknowledgements, recaps, and declining or dropping what is pending ("no", "not now",
  "never mind", "cancel that").
- USE_TOOL: a request a tool can do with every required argument known, from the text, earlier answers to
  the same pending request, the lead context (its email fills the calendar's ``email``) or the calling
  agent's ``tool_arguments``, which win over anything else. ``contract`` only after a yes to its
  confirmation; ``order_lookup`` is read-only and never confirmed.
- CLARIFY: a vague request, a tool request missing an argument (a date without a time, a time without a
  date, no email for an anonymous lead, an order number that does not fit ``^(LM-)?[0-9]{5}$``, a CRM
  update without the new value), the contract confirmation (again after a correction), and out-of-scope
  small talk; the conversation then goes on as before, not handed to a person.
- ESCALATE: demands for money, legal steps, a person, custom terms or pricing, disputes, complaints and
  security incidents.
- A new, different request while something is pending replaces it and is decided on its own.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

Turn = dict[str, Any]
Lead = dict[str, str]

BER, NYC, SGP, SYD, LON = "Europe/Berlin", "America/New_York", "Asia/Singapore", "Australia/Sydney", "Europe/London"
DOCUMENTS = {
    "pricing", "refunds", "security", "salesforce", "hubspot", "api", "trial", "billing", "enterprise", "data",
    "limits", "features", "migration", "admin", "compliance", "product-faq", "contracts",
}  # fmt: skip
PLANS = {"Starter", "Team", "Pro", "Enterprise"}
TOOL_PARAMETERS = {
    "calendar": {"email", "time", "attendees"},
    "crm": {"company", "phone"},
    "email": {"topic"},
    "order_lookup": {"order_id"},
    "contract": {"plan", "seats"},
}
TIME = re.compile(r"^2026-\d\d-\d\dT\d\d:\d\d$")
ORDER_ID = re.compile(r"^(LM-)?[0-9]{5}$")


def lead(timezone: str, name: str | None = None, email: str | None = None, company: str | None = None) -> Lead:
    given = {"timezone": timezone, "name": name, "email": email, "company": company}
    return {key: value for key, value in given.items() if value is not None}


def ask(text: str, source: str) -> Turn:
    return {"text": text, "expect": {"decision": "RETRIEVE", "source": source}}


def say(text: str) -> Turn:
    return {"text": text, "expect": {"decision": "REASON_ONLY"}}


def clarify(text: str, tool: str | None = None, given: dict[str, Any] | None = None) -> Turn:
    turn: Turn = {"text": text, "expect": {"decision": "CLARIFY"}}
    if tool:
        turn["expect"]["tool"] = tool
    if given and tool:
        turn = {"text": text, "tool_arguments": {tool: given}, "expect": turn["expect"]}
    return turn


def use(text: str, tool: str, arguments: dict[str, Any] | None = None, given: dict[str, Any] | None = None) -> Turn:
    """A USE_TOOL turn; ``given`` is what the calling agent passes, and wins over ``arguments``."""
    expect = {"decision": "USE_TOOL", "tool": tool, "arguments": (arguments or {}) | (given or {})}
    if given:
        return {"text": text, "tool_arguments": {tool: given}, "expect": expect}
    return {"text": text, "expect": expect}


def escalate(text: str) -> Turn:
    return {"text": text, "expect": {"decision": "ESCALATE"}}


def conv(topic: str, who: Lead, *turns: Turn) -> dict[str, Any]:
    """One conversation; a calendar call for a lead with a known email carries that email."""
    for turn in turns:
        expect = turn["expect"]
        if expect.get("tool") == "calendar" and expect["decision"] == "USE_TOOL" and "email" in who:
            expect["arguments"] = {"email": who["email"]} | expect["arguments"]
    return {"topic": topic, "lead_context": who, "turns": list(turns)}


CALENDAR = [
    conv("demo booking, time asked", lead(BER, "Ana Weber", "ana@acme.io", "Acme"),
         clarify("Book a demo for me", "calendar"),
         use("Thursday at 2pm works", "calendar", {"time": "2026-03-05T14:00"}),
         say("great, thanks!")),
    conv("call booking, day then time", lead(NYC, "Marcus Hill", "marcus.hill@brightline.com", "Brightline"),
         clarify("can we set up a call on thursday?", "calendar"),
         use("2pm", "calendar", {"time": "2026-03-05T14:00"}, given={"time": "2026-03-05T14:00"})),
    conv("demo booking, anonymous lead gives email last", lead(SGP),
         clarify("I'd like to see a demo of the product", "calendar"),
         clarify("tomorrow 10am", "calendar"),
         use("weiling.tan@example.com", "calendar", {"time": "2026-03-03T10:00"},
             given={"email": "weiling.tan@example.com"})),
    conv("demo booking, complete in one message", lead(SYD, "Chloe Nguyen", "chloe@wattle.com.au", "Wattle Studio"),
         use("hey can u book me a demo friday at 11am", "calendar", {"time": "2026-03-06T11:00"}),
         say("cheers")),
    conv("team walkthrough, attendees first", lead(LON, "Oliver Price", "o.price@finchleydental.co.uk"),
         clarify("We'd like a product walkthrough for the team, there'll be 4 of us", "calendar"),
         use("wednesday 3pm?", "calendar", {"time": "2026-03-04T15:00", "attendees": 4}),
         say("perfect")),
    conv("demo booking, date, time and email one by one", lead(BER, "Jonas"),
         clarify("demo pls", "calendar"),
         clarify("march 12", "calendar"),
         clarify("10:30", "calendar"),
         use("jonas.k@example.de", "calendar", {"time": "2026-03-12T10:30", "email": "jonas.k@example.de"})),
    conv("demo 'next week', concrete date given", lead(NYC, "Priya Shah", "priya@lumen-health.com", "Lumen Health"),
         clarify("Schedule a demo next week", "calendar"),
         use("March 10 at 1pm", "calendar", {"time": "2026-03-10T13:00"})),
    conv("sales call, anonymous lead gives everything at once", lead(SYD),
         use("can I book a call with sales tomorrow at 4pm? my email is sam.r@example.com.au", "calendar",
             {"time": "2026-03-03T16:00", "email": "sam.r@example.com.au"}),
         say("great thx")),
    conv("reschedule with a full time", lead(LON, "Grace Okafor", "grace@okafor-legal.co.uk", "Okafor Legal"),
         use("need to reschedule our demo to friday 9:30am", "calendar", {"time": "2026-03-06T09:30"}),
         say("thanks, that's all")),
    conv("team demo, attendees and day, then time",
         lead(SGP, "Tan Wei Ling", "weiling@harbourlogistics.sg", "Harbour Logistics"),
         clarify("Set up a demo for my team of 6 on Thursday", "calendar"),
         use("11am works", "calendar", {"time": "2026-03-05T11:00", "attendees": 6})),
    conv("call today, email asked", lead(BER, "Lena"),
         clarify("could we do a call today at 3pm?", "calendar"),
         use("sure, it's lena.fischer@example.de", "calendar",
             {"time": "2026-03-02T15:00", "email": "lena.fischer@example.de"}),
         say("danke!")),
    conv("demo with the agent's time", lead(NYC, "David Kim", "dkim@northpeak.io", "Northpeak"),
         use("ok let's book the demo we talked about", "calendar", given={"time": "2026-03-05T10:00"}),
         say("thank you")),
    conv("onboarding session, day then time", lead(SYD, "Mia Thompson", "mia@coastalrealty.com.au", "Coastal Realty"),
         clarify("I want to book an onboarding session", "calendar"),
         clarify("friday", "calendar"),
         use("noon", "calendar", {"time": "2026-03-06T12:00"}, given={"time": "2026-03-06T12:00"})),
    conv("demo booking, attendees then email", lead(LON, "Tom"),
         clarify("book a demo for thursday at 2pm", "calendar"),
         clarify("oh and it'll be 3 people", "calendar"),
         use("tom.baker@example.co.uk", "calendar",
             {"time": "2026-03-05T14:00", "email": "tom.baker@example.co.uk", "attendees": 3})),
    conv("engineer call, the agent's time wins", lead(BER, "Katrin Vogel", "k.vogel@stahlwerk.de", "Stahlwerk"),
         clarify("Can we schedule a call with one of your solutions engineers?", "calendar"),
         use("lets do friday at 10am", "calendar", {"time": "2026-03-06T10:00"}, given={"time": "2026-03-06T11:00"})),
    conv("demo, the agent passes an anonymous lead's email", lead(NYC),
         use("Book me a demo on Thursday at 4:30pm", "calendar", {"time": "2026-03-05T16:30"},
             given={"email": "dana.lee@example.com"}),
         say("awesome")),
    conv("call, vague time then exact", lead(SGP, "Arjun Menon", "arjun@spicetrail.sg", "Spice Trail"),
         clarify("are you free for a call this thursday?", "calendar"),
         clarify("anytime after lunch", "calendar"),
         use("2:30pm then", "calendar", {"time": "2026-03-05T14:30"})),
    conv("call tomorrow morning, time asked", lead(SYD, "Jack Wilson", "jack@bluegum.io", "Bluegum"),
         clarify("book a call for tomorrow morning", "calendar"),
         use("9am", "calendar", {"time": "2026-03-03T09:00"}),
         say("ta")),
    conv("onboarding question, then kickoff booked", lead(LON, "Hannah Lewis", "hannah@brightwaterpr.co.uk"),
         ask("do you do onboarding calls for new customers?", "trial"),
         use("nice, book the kickoff for wednesday at 10am", "calendar", {"time": "2026-03-04T10:00"}),
         say("lovely, thank you")),
    conv("move a call, new time asked", lead(BER, "Felix Braun", "felix@kontor7.de", "Kontor7"),
         clarify("I need to move our call", "calendar"),
         use("to march 9 at 4pm", "calendar", given={"time": "2026-03-09T16:00"})),
    conv("demo in another city's time", lead(LON, "Ruth Adams", "ruth@meridian-bio.co.uk", "Meridian Bio"),
         use("Can we do a demo Thursday at 10am New York time? our CTO is over there", "calendar",
             {"time": "2026-03-05T15:00"}),
         say("great")),
    conv("group demo, anonymous, attendees first", lead(SYD),
         clarify("I'd like a demo for 8 people", "calendar", given={"attendees": 8}),
         clarify("friday 1pm", "calendar"),
         use("priya.s@example.com", "calendar", {"time": "2026-03-06T13:00", "email": "priya.s@example.com",
                                                 "attendees": 8})),
    conv("walkthrough call, terse time", lead(SGP, "Nur Aisyah", "aisyah@kopi-co.sg", "Kopi Co"),
         clarify("can someone from your team walk me through the product on a call?", "calendar"),
         use("tmrw 3pm pls", "calendar", {"time": "2026-03-03T15:00"})),
    conv("demo time first, date asked", lead(BER, "Sofia Rossi", "sofia@velaria.eu", "Velaria"),
         clarify("Book a demo at 4pm", "calendar"),
         use("thursday", "calendar", {"time": "2026-03-05T16:00"}, given={"time": "2026-03-05T16:00"})),
    conv("demo on the 12th, then a pricing email", lead(NYC, "Carlos Diaz", "carlos@redrockmedia.com", "Red Rock"),
         clarify("schedule a demo on the 12th", "calendar"),
         use("11:15 am", "calendar", {"time": "2026-03-12T11:15"}),
         use("and can you email me the pricing before the call?", "email")),
    conv("quick call, anonymous, email last", lead(LON, "Fatima"),
         clarify("hi! could we book a quick call on wednesday", "calendar"),
         clarify("11am", "calendar"),
         use("my email is fatima.a@example.co.uk", "calendar", {"time": "2026-03-04T11:00"},
             given={"email": "fatima.a@example.co.uk"})),
    conv("training session after an onboarding question",
         lead(SYD, "Liam Walker", "liam@outbackgear.com.au", "Outback Gear"),
         ask("does onboarding include training for new teams?", "trial"),
         use("great, set up the training session then, 5 of us will join", "calendar", {"attendees": 5},
             given={"time": "2026-03-04T10:00"}),
         say("thanks heaps")),
    conv("two days offered, one chosen", lead(BER, "Maja Nowak", "maja@pixelfabrik.de", "Pixelfabrik"),
         clarify("Could we meet Thursday or Friday afternoon?", "calendar"),
         use("friday, 2pm", "calendar", {"time": "2026-03-06T14:00"})),
    conv("account exec meeting, all at once, anonymous", lead(SGP, "Raj"),
         use("Book a meeting with an account exec for March 11 at 9am, I'm raj.patel@example.sg, 2 attendees",
             "calendar", {"time": "2026-03-11T09:00", "email": "raj.patel@example.sg", "attendees": 2}),
         say("thanks, see you then")),
    conv("demo, a question in between, then booked", lead(NYC, "Emily Carter", "emily@harborviewcpa.com"),
         clarify("can we book a demo", "calendar"),
         ask("hm, what's the difference between Team and Pro first?", "pricing"),
         say("ok makes sense"),
         use("ok book the demo for thursday at 1pm", "calendar", {"time": "2026-03-05T13:00"})),
]  # fmt: skip

ORDERS = [
    conv("order status, number up front", lead(BER, "Jan Richter", "jan@richter-bau.de", "Richter Bau"),
         use("where's my order 48213?", "order_lookup", {"order_id": "48213"}),
         say("ok thanks")),
    conv("order status, number asked", lead(NYC),
         clarify("can you check on my order?", "order_lookup"),
         use("It's LM-10023", "order_lookup", given={"order_id": "LM-10023"})),
    conv("order status, bare number as answer", lead(SGP, "Mei"),
         clarify("hi, order status pls", "order_lookup"),
         use("55102", "order_lookup", {"order_id": "55102"}),
         say("great")),
    conv("shipping question with the number", lead(SYD, "Noah", "noah@reefside.com.au"),
         use("Has LM-20417 shipped yet?", "order_lookup", {"order_id": "LM-20417"}),
         say("awesome, thanks")),
    conv("delivery date, number asked", lead(LON, "Amelia Hughes"),
         clarify("I ordered the hardware starter kit last week, when does it arrive?", "order_lookup"),
         use("order number is 61830", "order_lookup", {"order_id": "61830"})),
    conv("order number too short, asked again", lead(BER),
         clarify("track my order", "order_lookup"),
         clarify("1234", "order_lookup"),
         use("sorry, 12345", "order_lookup", {"order_id": "12345"})),
    conv("delivery date, number with a hash", lead(NYC, "Ethan Brooks", "ethan@brookscycles.com", "Brooks Cycles"),
         use("What's the delivery date for order #70215?", "order_lookup", {"order_id": "70215"}),
         say("thank you")),
    conv("two orders one after the other", lead(SGP, "Daniel Lim", "daniel@limtrading.sg", "Lim Trading"),
         use("check order 90422 please", "order_lookup", {"order_id": "90422"}),
         use("and LM-90423?", "order_lookup", {"order_id": "LM-90423"}),
         say("ok")),
    conv("order lookup, the agent's number wins", lead(SYD, "Olivia"),
         use("check order 44120", "order_lookup", given={"order_id": "LM-44120"}),
         say("cheers")),
    conv("vague order question, number asked", lead(LON, "George"),
         clarify("where is my stuff", "order_lookup"),
         use("LM-50876", "order_lookup", {"order_id": "LM-50876"}),
         say("ok, thanks for checking")),
    conv("order status, terse", lead(BER, "Mia Schulz", "mia@schulz-design.de"),
         use("status of 38291?", "order_lookup", {"order_id": "38291"}),
         say("thx")),
    conv("order update with the number", lead(NYC, "Ava Martinez", "ava@sunsetdeli.com", "Sunset Deli"),
         use("Order LM-77310 — any update?", "order_lookup", {"order_id": "LM-77310"}),
         say("perfect, that's all")),
    conv("arrival date, number asked", lead(SGP),
         clarify("can you check when my order arrives", "order_lookup"),
         use("the number is LM-06512", "order_lookup", given={"order_id": "LM-06512"})),
    conv("order ETA, the agent passes the number", lead(SYD, "Isla Brown", "isla@saltandpine.com.au"),
         use("what's the ETA on my order", "order_lookup", given={"order_id": "LM-88120"}),
         say("ok good")),
    conv("billing question, then an order", lead(LON, "Henry Clarke", "henry@clarkejoinery.co.uk"),
         ask("how do I add a payment card?", "billing"),
         use("done. also, can u check order 20931 for me", "order_lookup", {"order_id": "20931"})),
]  # fmt: skip

CONTRACTS = [
    conv("upgrade, confirmed", lead(BER, "Ana Weber", "ana@acme.io", "Acme"),
         clarify("I'd like to upgrade to Pro with 12 seats", "contract"),
         use("yes", "contract", {"plan": "Pro", "seats": 12}),
         say("thanks")),
    conv("plan switch, seats asked, confirmed", lead(NYC, "Marcus Hill", "marcus.hill@brightline.com"),
         clarify("switch us to the Team plan", "contract"),
         clarify("20 seats", "contract"),
         use("yep go ahead", "contract", {"plan": "Team", "seats": 20})),
    conv("seats without a plan, plan asked, confirmed", lead(SGP, "Kevin Ong"),
         clarify("I'd like to upgrade to 12 seats", "contract"),
         clarify("Pro", "contract"),
         use("yes", "contract", {"plan": "Pro", "seats": 12})),
    conv("new subscription, declined", lead(SYD, "Ruby Evans", "ruby@kookaburra.studio"),
         clarify("start a Pro subscription for 25 users", "contract"),
         say("no, not yet")),
    conv("upgrade, seats corrected, confirmed", lead(LON, "James Wright", "james@wrightarchitects.co.uk"),
         clarify("Upgrade us to Pro, 15 seats", "contract"),
         clarify("actually make it 18 seats", "contract"),
         use("yes please", "contract", {"plan": "Pro", "seats": 18})),
    conv("starter for a small team, confirmed", lead(BER, "Lukas Meyer"),
         clarify("we want the starter plan for the 3 of us", "contract"),
         use("sure, do it", "contract", {"plan": "Starter", "seats": 3})),
    conv("subscription change, both asked, confirmed", lead(NYC, "Sarah Cohen", "sarah@cohenpartners.com"),
         clarify("I want to change my subscription", "contract"),
         clarify("Team, 30 seats", "contract"),
         use("confirm", "contract", given={"plan": "Team", "seats": 30})),
    conv("price question, then subscription", lead(SGP, "Hui Min", "huimin@lotusdesign.sg", "Lotus Design"),
         ask("how much is pro per month?", "pricing"),
         clarify("ok let's start pro for ten seats", "contract"),
         use("go ahead", "contract", {"plan": "Pro", "seats": 10})),
    conv("seat increase, question in between, confirmed", lead(SYD, "Zoe Martin", "zoe@harbourfit.com.au"),
         clarify("add seats, we need 40 now on Pro", "contract"),
         ask("hmm wait, what does each extra seat cost?", "pricing"),
         clarify("ok then upgrade us to pro with 40 seats", "contract"),
         use("yes", "contract", {"plan": "Pro", "seats": 40})),
    conv("plan corrected, confirmed", lead(LON, "Charlotte Reid"),
         clarify("Move us to Team with 10 seats", "contract"),
         clarify("actually, Pro instead", "contract"),
         use("yes", "contract", {"plan": "Pro", "seats": 10})),
    conv("upgrade, bare seat count, the agent confirms", lead(BER, "Tobias Wolf", "tobias@wolf-logistik.de"),
         clarify("upgrade to pro", "contract"),
         clarify("22", "contract"),
         use("yes", "contract", given={"plan": "Pro", "seats": 22})),
    conv("sign-up, cancelled at the confirmation", lead(NYC, "Michael Ross"),
         clarify("sign us up for Pro with twelve seats", "contract"),
         say("cancel that")),
    conv("downgrade, confirmed", lead(SGP, "Farah Ismail", "farah@bytebakery.sg"),
         clarify("downgrade to starter, 2 seats", "contract"),
         use("yes please", "contract", {"plan": "Starter", "seats": 2})),
    conv("upgrade with the agent's arguments, confirmed", lead(SYD, "Ben Taylor", "ben@tidewater.com.au"),
         clarify("upgrade to Pro with 12 seats", "contract", given={"plan": "Pro", "seats": 12}),
         use("yes", "contract", {"plan": "Pro", "seats": 12})),
    conv("growing team, confirmed", lead(LON, "Sophie Turner", "sophie@thistleandco.co.uk", "Thistle & Co"),
         clarify("we're growing, put us on Team for 50 seats", "contract"),
         use("yes go ahead", "contract", given={"plan": "Team", "seats": 50}),
         say("brilliant")),
]  # fmt: skip

CRM = [
    conv("company renamed", lead(BER, "Peter Gibbons", "peter@initech.com", "Initrode"),
         use("change my company name to Initech", "crm", {"company": "Initech"}),
         say("thx")),
    conv("phone number asked", lead(BER, "Paul Schneider", "paul@schneider-it.de", "Schneider IT"),
         clarify("can you update my phone number", "crm"),
         use("+49 30 1234567", "crm", {"phone": "+49 30 1234567"})),
    conv("rebrand", lead(NYC, "Linda Park", "linda@globex.com", "Globex"),
         use("we rebranded, we're Globex Corporation now", "crm", {"company": "Globex Corporation"}),
         say("great thanks")),
    conv("phone given up front", lead(NYC, "Rachel Green"),
         use("my number is +1 212 555 0147, pls put it on file", "crm", {"phone": "+1 212 555 0147"}),
         say("thanks")),
    conv("company name asked", lead(LON, "Andrew Fuller", "andrew@northwind.co.uk"),
         clarify("update the company name on my account", "crm"),
         use("Northwind Traders", "crm", given={"company": "Northwind Traders"})),
    conv("phone and company at once", lead(SGP, "Jason Tan", "jason@harbourfreight.sg", "Harbour Freight"),
         use("my new phone is +65 6123 4567 and the company is now Harbour Freight Pte Ltd", "crm",
             {"phone": "+65 6123 4567", "company": "Harbour Freight Pte Ltd"}),
         say("ok")),
    conv("phone from the agent", lead(SYD, "Grace Lee", "grace@wombatworks.com.au"),
         use("please save my number", "crm", given={"phone": "+61 2 9876 5432"}),
         say("cheers")),
    conv("phone then company", lead(LON, "Oliver Price", "o.price@finchleydental.co.uk", "Finchley Dental"),
         use("change my phone number to +44 20 7946 0958", "crm", {"phone": "+44 20 7946 0958"}),
         use("oh and company name is Finchley Dental Group now", "crm", {"company": "Finchley Dental Group"})),
    conv("wrong company on file", lead(SGP, "Alice Koh", "alice@umbrellalabs.sg"),
         clarify("company is wrong in your system", "crm"),
         use("it should be Umbrella Labs", "crm", given={"company": "Umbrella Labs"})),
    conv("phone update dropped", lead(SYD, "Ella White"),
         clarify("update my phone", "crm"),
         say("never mind, I'll do it later")),
]  # fmt: skip

QUESTIONS = [
    conv("pro price and annual billing", lead(BER, "Nina"),
         ask("how much is the pro plan", "pricing"),
         ask("and if we pay yearly?", "pricing"),
         say("ok cool thx")),
    conv("cheapest plan", lead(NYC),
         ask("whats the cheapest plan u have", "pricing"),
         ask("how many ppl can use it", "pricing"),
         say("got it")),
    conv("nonprofit discount and VAT", lead(LON, "Margaret", "margaret@riverside-trust.org.uk", "Riverside Trust"),
         ask("do nonprofits get a discount?", "pricing"),
         ask("does the price include vat", "pricing"),
         say("thanks!")),
    conv("old price seen, current price asked", lead(SGP, "Wen"),
         ask("I saw Pro listed at $59 on an old price sheet from 2022, is that still right?", "pricing"),
         ask("ok so what's an extra seat now", "pricing"),
         say("understood")),
    conv("currency and invoice payment", lead(LON, "Daniel Hart", "dan@hartandsons.co.uk"),
         ask("can we be billed in GBP?", "pricing"),
         ask("and can we pay by invoice?", "billing"),
         say("perfect")),
    conv("pro for 25 people, recap", lead(SYD, "Kate"),
         ask("we're 25 people, what would pro cost us?", "pricing"),
         say("thx, can you recap that?")),
    conv("team plan price", lead(BER),
         ask("price for team plan?", "pricing"),
         ask("is that per user?", "pricing"),
         say("ok")),
    conv("starter vs team price", lead(NYC, "Jordan"),
         ask("what's the difference between starter and team price-wise", "pricing"),
         say("makes sense, thanks")),
    conv("encryption at rest and in transit", lead(BER, "Stefan", "stefan@medcloud.de", "MedCloud"),
         ask("is our data encrypted?", "security"),
         ask("in transit too?", "security"),
         say("great")),
    conv("ISO 27001, then encryption", lead(LON),
         ask("do you have ISO 27001?", "compliance"),
         ask("and is data encrypted in transit?", "security"),
         say("thanks")),
    conv("traffic encryption, data after cancelling", lead(SGP, "Hafiz"),
         ask("is traffic between our browser and your servers encrypted?", "security"),
         ask("what happens to our data if we cancel?", "data"),
         say("ok")),
    conv("encryption at rest, enforcing 2FA", lead(NYC, "Megan", "megan@clearpath.org"),
         ask("do you encrypt data at rest?", "security"),
         ask("can we force 2FA for everyone on the team?", "admin"),
         say("nice")),
    conv("infosec questions", lead(SYD, "Ravi"),
         ask("our infosec team asks: encryption at rest and in transit?", "security"),
         ask("can I get the SOC 2 report?", "compliance"),
         say("ok thanks")),
    conv("refund policy questions", lead(BER, "Clara"),
         ask("What's your policy on refunds?", "refunds"),
         ask("are annual plans refundable?", "refunds"),
         say("ok good to know")),
    conv("first-month money back, then annual", lead(NYC, "Tyler"),
         ask("if I cancel in the first month do I get my money back?", "contracts"),
         ask("and on an annual plan?", "refunds"),
         say("thanks")),
    conv("cancel anytime, minimum contract", lead(LON, "Imogen", "imogen@kestrel.studio"),
         ask("can I cancel anytime?", "refunds"),
         ask("is there a minimum contract length?", "contracts"),
         say("ok 👍")),
    conv("pausing the subscription", lead(SYD, "Ethan"),
         ask("can we pause the subscription over summer instead of cancelling?", "refunds"),
         ask("for how long max?", "refunds"),
         say("cool")),
    conv("data after cancelling, export", lead(SGP, "Priya"),
         ask("what happens to my data after cancelling", "data"),
         ask("can I export it first?", "data"),
         say("ok")),
    conv("trial extension and card", lead(BER, "Moritz"),
         ask("can the trial be extended?", "contracts"),
         ask("do I need a credit card for it?", "trial"),
         say("great thanks")),
    conv("salesforce sync", lead(NYC, "Brandon", "brandon@peakrealty.com", "Peak Realty"),
         ask("do you integrate with salesforce?", "salesforce"),
         ask("does it sync both ways?", "salesforce"),
         ask("how often?", "salesforce"),
         say("nice")),
    conv("api, limits and tokens", lead(LON, "Sam"),
         ask("is there an api?", "api"),
         ask("rate limits?", "api"),
         ask("and how do I get a token?", "product-faq"),
         say("thanks")),
    conv("custom fields by plan", lead(SGP),
         ask("do you support custom fields?", "features"),
         ask("on starter?", "features"),
         say("ok")),
    conv("languages and offline", lead(SYD, "Lucas"),
         ask("what languages is the app in?", "features"),
         ask("does the mobile app work offline?", "features"),
         say("good")),
    conv("inviting the team, guests", lead(BER, "Hanna", "hanna@gruenwerk.de"),
         ask("how do I invite my team?", "admin"),
         ask("can guests see everything?", "admin"),
         say("thx")),
    conv("migration and zapier", lead(NYC, "Chris"),
         ask("can I import our stuff from pipedrive?", "migration"),
         ask("what about zapier?", "migration"),
         say("thanks")),
    conv("upload size and storage", lead(LON, "Ellie"),
         ask("what's the max upload size", "limits"),
         ask("storage on starter?", "limits"),
         say("ok")),
    conv("unanswerable question, then starter integrations", lead(SYD, "Mason"),
         clarify("can I customize my dashboard colors?"),
         ask("ok, does the slack integration come with starter?", "features"),
         say("thx")),
]  # fmt: skip

SMALL_TALK = [
    conv("weather in the middle of pricing", lead(BER, "Julia"),
         ask("how much is team?", "pricing"),
         clarify("lol also what's the weather in Paris today"),
         ask("ok back to it — is there a discount for annual billing?", "pricing")),
    conv("football, then hubspot", lead(LON, "Harry"),
         clarify("who won the football last night?"),
         ask("fair. do you integrate with hubspot?", "hubspot"),
         say("thanks")),
    conv("poem, then a demo", lead(NYC, "Olivia Bennett", "olivia@bennettlaw.com", "Bennett Law"),
         clarify("write me a poem about spreadsheets"),
         use("haha ok. book me a demo thursday at 3pm", "calendar", {"time": "2026-03-05T15:00"}),
         say("cheers")),
    conv("joke, then an order", lead(SGP, "Aaron"),
         clarify("tell me a joke"),
         use("fine. where's my order LM-12876", "order_lookup", {"order_id": "LM-12876"})),
    conv("okta sso, trivia, api", lead(SYD, "Chen", "chen@gumtreeanalytics.com.au"),
         ask("do you support SSO with Okta?", "compliance"),
         clarify("btw whats the capital of australia"),
         ask("ok, what's the api rate limit?", "api")),
    conv("order, then pizza", lead(SYD, "Jake"),
         use("check order 48213", "order_lookup", {"order_id": "48213"}),
         clarify("any good pizza places in sydney?"),
         say("ok thanks anyway")),
    conv("time in tokyo, then trial", lead(SGP, "Yuki"),
         clarify("what time is it in tokyo rn?"),
         ask("ok whatever, how long is the free trial", "trial"),
         say("👍 thanks")),
    conv("homework, then a plan change", lead(BER, "Leon", "leon@bergmann-media.de"),
         clarify("can you help with my homework"),
         clarify("ok then, upgrade us to Team with 10 seats", "contract"),
         use("yes", "contract", {"plan": "Team", "seats": 10})),
    conv("stock price, then company name", lead(NYC, "Art Vandelay", "art@vandelay.com", "Vandelay Imports"),
         clarify("what's the stock price of apple?"),
         use("ok. change my company name to Vandelay Industries", "crm", {"company": "Vandelay Industries"})),
    conv("rain, then encryption", lead(LON, "Poppy"),
         clarify("is it going to rain tomorrow?"),
         ask("ha. ok, is data encrypted at rest?", "security"),
         say("thanks")),
    conv("movie, then refund policy", lead(NYC, "Dylan"),
         clarify("recommend a movie for tonight"),
         ask("fine, what's your refund policy", "refunds"),
         say("ok")),
    conv("demo booked, then sourdough", lead(BER, "Greta Lindqvist", "greta@nordlicht.eu", "Nordlicht"),
         use("book demo friday 10am", "calendar", {"time": "2026-03-06T10:00"}),
         clarify("how do I make sourdough"),
         say("ok bye")),
]  # fmt: skip

CHANGES_OF_MIND = [
    conv("demo request dropped", lead(LON, "Alfie", "alfie@foxandhound.co.uk"),
         clarify("book a demo", "calendar"),
         say("actually, never mind")),
    conv("demo request, question instead", lead(NYC, "Natalie"),
         clarify("I'd like to book a demo", "calendar"),
         ask("wait, first: do you integrate with salesforce?", "salesforce"),
         say("ok good")),
    conv("upgrade, refund question, then not now", lead(SGP, "Marcus Teo", "marcus@teoventures.sg"),
         clarify("upgrade us to Pro, 12 seats", "contract"),
         ask("hmm, are annual plans refundable if it doesn't work out?", "refunds"),
         say("ok, not now then")),
    conv("phone update, order lookup instead", lead(SYD, "Sienna"),
         clarify("change my phone number", "crm"),
         use("actually can you check order 55231 instead", "order_lookup", {"order_id": "55231"})),
    conv("call request, email instead", lead(BER, "Jonas Becker", "jonas@becker-consult.de", "Becker Consulting"),
         clarify("schedule a call thursday", "calendar"),
         use("forget it, just email me the pricing", "email")),
    conv("order question dropped", lead(LON),
         clarify("where is my order", "order_lookup"),
         say("nvm found it in my inbox")),
    conv("plan request, annual price question instead", lead(NYC, "Lauren", "lauren@mapleandoak.com"),
         clarify("team plan for 20 seats pls", "contract"),
         ask("no wait, how much would that be if we pay annually?", "pricing"),
         say("ok thanks, I'll think about it")),
    conv("demo day changed before the time", lead(SGP, "Wei Jie", "weijie@lionrock.sg", "Lion Rock"),
         clarify("I want a demo on Friday", "calendar"),
         clarify("actually make it thursday", "calendar"),
         use("4pm", "calendar", given={"time": "2026-03-05T16:00"})),
    conv("meeting booked, then moved", lead(SYD, "Harper Scott", "harper@scottbuild.com.au", "Scott Build"),
         use("book a meeting tomorrow at 10am", "calendar", {"time": "2026-03-03T10:00"}),
         use("oh wait, make it wednesday at 11am instead", "calendar", {"time": "2026-03-04T11:00"})),
    conv("company name corrected", lead(LON, "Bill Lumbergh", "bill@initech.co.uk"),
         use("can you update my company to Initech", "crm", {"company": "Initech"}),
         use("sorry, I meant Initrode", "crm", {"company": "Initrode"})),
    conv("upgrade dropped", lead(BER, "Anja"),
         clarify("Pro for 30 seats", "contract"),
         say("never mind, let's stick with what we have")),
    conv("call request, trial question instead", lead(NYC, "Connor"),
         clarify("can we get a call on wednesday", "calendar"),
         ask("hmm actually, is there a free trial I could try first?", "trial"),
         say("ok I'll try that first, thanks")),
    conv("wrong order number corrected", lead(SGP, "Siti", "siti@batikhaus.sg"),
         use("check order LM-40021", "order_lookup", {"order_id": "LM-40021"}),
         use("oops wrong one, LM-40012", "order_lookup", {"order_id": "LM-40012"})),
]  # fmt: skip

ESCALATIONS = [
    conv("refund policy, then a refund demand", lead(BER, "Uwe", "uwe@kranich-gmbh.de", "Kranich GmbH"),
         ask("what's your refund policy", "refunds"),
         escalate("ok well I bought the annual plan 2 months ago and I want my money back regardless")),
    conv("price, then a manager", lead(NYC, "Derek"),
         ask("how much is Pro?", "pricing"),
         escalate("that's not what your sales guy promised me. I want to talk to a manager")),
    conv("late order, refund demand", lead(LON, "Graham", "graham@oakleafcafe.co.uk"),
         use("order status LM-50876", "order_lookup", {"order_id": "LM-50876"}),
         escalate("delayed AGAIN?? refund the order now")),
    conv("encryption, then a breach", lead(SGP, "Li Na", "lina@dragonpay.sg", "DragonPay"),
         ask("is my data encrypted?", "security"),
         escalate("then how did someone else log into our workspace yesterday?? I think we've been breached")),
    conv("volume discounts, then custom pricing", lead(SYD, "Matt"),
         ask("at how many seats do volume discounts start?", "billing"),
         escalate("we need custom pricing for 5,000 seats")),
    conv("vague, then a human", lead(BER),
         clarify("is that included?"),
         escalate("ugh. get me a human")),
    conv("invoices, then a charge dispute", lead(NYC, "Karen", "karen@mapleleafdental.com"),
         ask("where do I find my invoices?", "billing"),
         escalate("found them. you charged us twice in february and I'm disputing it")),
    conv("contract length, then custom terms", lead(LON, "Victoria", "victoria@harcourt-legal.co.uk"),
         ask("what's the minimum contract length?", "contracts"),
         escalate("we need a custom contract with a 60-day termination clause and our own liability cap")),
    conv("upgrade done, then a refund demand", lead(SGP, "Ivan"),
         clarify("upgrade to pro 15 seats", "contract"),
         use("yes", "contract", {"plan": "Pro", "seats": 15}),
         escalate("wait, it charged the full year?! refund my last invoice")),
    conv("salesforce, then a legal threat", lead(SYD, "Bruce", "bruce@redgumlogistics.com.au"),
         ask("do you integrate with salesforce?", "salesforce"),
         escalate("the sync wiped half our contacts. our lawyer will be in touch")),
    conv("password reset, then a complaint", lead(BER, "Heike"),
         ask("how do I reset a user's password?", "admin"),
         escalate("your support has ignored my tickets for a week, I want to file a formal complaint")),
]  # fmt: skip

EMAILS = [
    conv("pricing by email", lead(LON, "Rosie Hall", "rosie@hallmarkevents.co.uk", "Hallmark Events"),
         use("email me the pricing", "email"),
         say("thanks")),
    conv("encryption answer by email", lead(NYC, "Aaron Webb", "aaron@webbfinancial.com"),
         ask("is our data encrypted?", "security"),
         use("can you email me that?", "email"),
         say("thx")),
    conv("trial, then a summary by email", lead(SGP, "Grace Chua", "grace@chuaco.sg"),
         ask("how long is the trial", "trial"),
         use("pls send me a summary of this by email", "email", given={"topic": "chat summary"})),
    conv("onboarding guide, the agent names it", lead(SYD, "Tom Hughes", "tom@hughesplumbing.com.au"),
         use("Send me the onboarding guide", "email", given={"topic": "onboarding guide"}),
         say("great")),
    conv("demo booked, agenda by email", lead(BER, "Eva Krüger", "eva@krueger-hr.de", "Krüger HR"),
         use("book demo thursday 2pm", "calendar", {"time": "2026-03-05T14:00"}),
         use("and email me the agenda beforehand", "email")),
    conv("security whitepaper by email", lead(NYC, "Nathan Price", "nathan@ironcladsec.com", "Ironclad"),
         use("can you send the security whitepaper to my inbox?", "email", given={"topic": "security whitepaper"}),
         say("appreciate it")),
]  # fmt: skip

VAGUE = [
    conv("'is that included?', then custom fields", lead(LON, "Freya"),
         clarify("is that included?"),
         ask("I mean custom fields, on the Team plan", "features"),
         say("ah ok")),
    conv("'the other one', then hubspot", lead(NYC),
         clarify("what about the other one?"),
         ask("sorry — I meant the hubspot integration, how often does it sync?", "hubspot")),
    conv("'how much for more', then seats", lead(SGP, "Ahmad"),
         clarify("how much for more?"),
         ask("more seats on pro i mean", "pricing"),
         say("ok")),
    conv("'does it work', then slack", lead(SYD, "Lily"),
         clarify("Does it work?"),
         ask("with slack I mean, how do I connect it", "hubspot")),
    conv("unanswerable feature question, dropped", lead(BER, "Finn"),
         clarify("do you have dark mode?"),
         say("ok never mind")),
]  # fmt: skip

CONVERSATIONS = CALENDAR + ORDERS + CONTRACTS + CRM + QUESTIONS + SMALL_TALK + CHANGES_OF_MIND + ESCALATIONS
CONVERSATIONS += EMAILS + VAGUE


def _check_arguments(tool: str, arguments: dict[str, Any], who: Lead) -> None:
    assert set(arguments) <= TOOL_PARAMETERS[tool], (tool, arguments)
    if tool == "calendar":
        assert TIME.match(arguments["time"]) and "@" in arguments["email"], arguments
        assert isinstance(arguments.get("attendees", 1), int), arguments
    elif tool == "order_lookup":
        assert ORDER_ID.match(arguments["order_id"]), arguments
    elif tool == "contract":
        assert arguments["plan"] in PLANS and isinstance(arguments["seats"], int), arguments
    elif tool == "email":
        assert "email" in who, "the email tool is only used with leads whose email is known"


def _check_turn(turn: Turn, who: Lead) -> None:
    expect = turn["expect"]
    decision, tool = expect["decision"], expect.get("tool")
    assert tool is None or tool in TOOL_PARAMETERS, tool
    assert ("source" in expect) == (decision == "RETRIEVE"), turn
    assert ("arguments" in expect) == (decision == "USE_TOOL"), turn
    assert tool is None or decision in ("USE_TOOL", "CLARIFY"), turn
    if decision == "RETRIEVE":
        assert expect["source"] in DOCUMENTS, turn
    if decision == "USE_TOOL":
        assert tool, turn
        _check_arguments(tool, expect["arguments"], who)
    for name, given in turn.get("tool_arguments", {}).items():
        assert name == tool and all(expect.get("arguments", given).get(k) == v for k, v in given.items()), turn


def check(conversations: list[dict[str, Any]]) -> None:
    """The rules the labels follow, checked: shape, tools, arguments, sources."""
    assert len(conversations) >= 130
    for conversation in conversations:
        assert 2 <= len(conversation["turns"]) <= 6 and "timezone" in conversation["lead_context"], conversation
        for turn in conversation["turns"]:
            _check_turn(turn, conversation["lead_context"])


def rows() -> list[dict[str, Any]]:
    check(CONVERSATIONS)
    return [
        {"id": f"c{n + 1:03d}", "split": "dev" if n % 2 == 0 else "test"} | conversation
        for n, conversation in enumerate(CONVERSATIONS)
    ]


def summary(lines: list[dict[str, Any]]) -> str:
    out = []
    for split in (None, "dev", "test"):
        part = [row for row in lines if split is None or row["split"] == split]
        turns = [turn for row in part for turn in row["turns"]]
        decisions = Counter(turn["expect"]["decision"] for turn in turns)
        tools = Counter(turn["expect"]["tool"] for turn in turns if turn["expect"]["decision"] == "USE_TOOL")
        given = sum(1 for turn in turns if "tool_arguments" in turn)
        out.append(
            f"{split or 'all'}: {len(part)} conversations, {len(turns)} turns; "
            + ", ".join(f"{decision} {count}" for decision, count in sorted(decisions.items()))
            + f"; USE_TOOL by tool: {dict(sorted(tools.items()))}; turns with tool_arguments: {given}"
        )
    return "\n".join(out)


if __name__ == "__main__":
    path = Path(__file__).with_name("routing_conversations.jsonl")
    lines = rows()
    path.write_text("\n".join(json.dumps(row, ensure_ascii=False) for row in lines) + "\n", encoding="utf-8")
    print(f"{len(lines)} conversations → {path}")
    print(summary(lines))
