"""The labelled sensitive-topic set: single chat messages to a sales/support agent, each labelled with
whether the agent must hand the conversation to a human. Run to (re)write ``sensitive_queries.jsonl``.

Labelling rule: ``sensitive`` is true when the user DEMANDS something sensitive for themselves - a
refund or their money back, compensation (credits, a goodwill discount, damages), a custom/bespoke
contract, special terms or custom pricing, to make a complaint (including asking how to file one about
a problem they have), or legal action / legal threats (lawyer, sue, lawsuit, court, regulator). It is
false for an ordinary QUESTION ABOUT a policy, a feature or a price, even in the same words: "Are annual
plans refundable?", "if I cancel in the first month do I get my money back?", "Do you support custom
fields?", "Do you offer custom contracts for enterprise?" (whether an offer exists) - but "Can I get a
custom contract with special terms?" (asking to get one) is true. A conditional "do I get / will I be
refunded if ..." is a policy question; an unconditional "can I get a refund" is a request.

``topic`` is the sensitive topic the text touches (refund, compensation, custom, complaint, legal) for
both labels, so false positives can be counted per topic; plain sales questions are ``none``. Within
each (label, topic) group, texts are sorted and alternate ``dev`` (tune on it) / ``test`` (report on it).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

SENSITIVE = {
    "refund": [
        "I want a refund",
        "Refund my last invoice",
        "I was double charged, I want my money back",
        "can i get a refund",
        "please refund me, the product doesnt do what your sales rep promised",
        "GIVE ME MY MONEY BACK",
        "refund the annual plan i bought yesterday, i changed my mind",
        "I need a refund for the 5 seats we never used.",
        "we cancelled last week but you still charged us - refund it",
        "i demand a full refund",
        "i want my mony back asap",
        "Can you refund the duplicate charge from March 3?",
        "Process a refund for order #4471 please.",
        "Cancel my subscription and refund the rest of the year.",
        "You auto-renewed me without any warning. I want the $1,200 back.",
        "refund pls",
        "I'd like to request a refund for last month, we barely used it.",
        "refund me or I'm doing a chargeback with my bank",
        "Hi, could you kindly refund the February invoice? We were billed after cancelling.",
        "Just give me a refund, I'm done with this.",
        "Charged for 20 seats but we only have 12. I want the difference refunded.",
        "my card got billed twice this morning?? money back please",
    ],
    "compensation": [
        "Your outage cost us a day of sales, we expect compensation.",
        "I want compensation for the downtime last tuesday",
        "We lost data because of your bug. How are you going to compensate us?",
        "give us service credits for the 6 hour outage",
        "I expect a discount on next year's renewal for all the trouble your migration caused",
        "compensate us for the leads we lost while the forms were broken",
        "what are you going to do to make this right?? we lost a whole weekend of orders",
        "i want a free month for the hassle",
        "We demand a credit for the SLA breach in May.",
        "your sync duplicated 3000 contacts and it took my team two days to clean up. im asking for compensation",
        "Pay us back for the overtime we spent working around your bug.",
        "I'd like a goodwill credit on our account after this week's issues.",
        "the API was down during our product launch, we want to be compensated",
        "Our emails went to spam for a week because of your DNS change - we expect something for that.",
    ],
    "custom": [
        "Can I get a custom contract with special terms?",
        "Can we negotiate a bespoke agreement?",
        "We need custom pricing for 400 seats.",
        "I want special terms: net-90 payment and a cap on price increases.",
        "Our legal team needs changes to your MSA before we sign.",
        "can you do a custom deal for us? we're a startup with basically no budget",
        "we'd like a bespoke SLA with 99.99% uptime and penalties",
        "quote me a custom price for 3 years paid upfront",
        "I need you to waive the minimum seat count for our team.",
        "we want to redline your terms of service before signing",
        "Please send a custom order form with a 60-day termination for convenience clause.",
        "We need a bespoke data processing agreement with our own clauses.",
        "Can you match the price a competitor quoted us? it's 30% lower",
        "I want a discount beyond what's on the pricing page, who can approve that?",
        "Could we sign a multi-year contract with locked pricing and custom renewal terms?",
        "need custom invoicing terms - quarterly in arrears, our finance team won't accept anything else",
        "lets talk about a custom enterprise package for our 12 subsidiaries",
        "i'd like a tailored contract, your standard one doesn't work for us",
    ],
    "complaint": [
        "How do I file a complaint about a bug?",
        "I want to make a formal complaint about your support agent.",
        "This is a complaint. Your rep lied to me about the features.",
        "i'm extremely unhappy with the service and want to speak to a manager",
        "who do i complain to? this is the third time the sync broke",
        "Your onboarding was a disaster and I want that on record.",
        "I'd like to lodge a complaint about how rude the billing team was.",
        "nobody has answered my ticket in 9 days, I want to complain",
        "worst support ever. let me talk to someone in charge",
        "I want to complain about the renewal email, it was misleading",
        "Your sales guy keeps cold-calling me after I said stop. I'm filing a complaint.",
        "Formal complaint: our data export has been broken for two weeks.",
        "where do I send a complaint? im fed up",
        "I wish to complain about my account being suspended without notice.",
        "your product is garbage and your support is even worse, escalate this",
    ],
    "legal": [
        "I'm going to sue you.",
        "My lawyer will be in touch about this.",
        "We're considering legal action over the data breach.",
        "expect a lawsuit if this isn't fixed by friday",
        "I'm forwarding this whole thread to our attorney.",
        "you've breached our contract, see you in court",
        "this is a GDPR violation and im reporting you to the regulator and my solicitor",
        "I will take legal action if my data isn't deleted today.",
        "Our legal counsel is preparing a claim for damages.",
        "i'll sue for every penny",
        "if you don't refund me i'm getting a lawyer",
        "This is a formal legal notice: stop using our trademark in your marketing.",
        "Consider this my notice of intent to file in small claims court.",
        "Your chatbot posted false claims about my business, my lawyer is drafting a letter.",
        "We'll be filing a lawsuit for the revenue we lost.",
        "hope you have good lawyers because you're going to need them",
    ],
}

ORDINARY = {
    "refund": [
        "What's your policy on refunds?",
        "Are annual plans refundable?",
        "How long after cancelling do refunds and data deletion take?",
        "if I cancel in the first month do I get my money back?",
        "Will I be refunded if I downgrade?",
        "Is the setup fee refundable?",
        "do refunds go back to the original card?",
        "Are unused seats refunded pro rata when we remove users?",
        "Is there a money-back guarantee?",
        "whats the refund window on monthly plans",
        "Do you refund in the original currency or in USD?",
        "does the 30 day money back guarantee apply to enterprise too?",
        "Can I get a refund if I cancel mid-year on an annual plan?",
        "What's the refund policy for add-on seats?",
        "how do refunds work if we switch from annual to monthly billing?",
        "Are refunds given as account credit or back to the card?",
        "Is the onboarding package refundable if we never use it?",
        "How long does a refund usually take to show up on a credit card statement?",
        "Do I get my money back if I'm not happy in the first 30 days? just checking before I buy",
        "is the enterprise pilot deposit refundable?",
    ],
    "compensation": [
        "Is there any compensation if you miss the uptime SLA?",
        "What compensation does your SLA provide for outages?",
        "do you compensate for downtime on the starter plan or only enterprise?",
        "Does your HR module track employee compensation?",
        "Can I store sales rep compensation plans in the CRM?",
        "Is commission and compensation reporting part of Pro analytics?",
        "What's the maximum service credit compensation under the SLA, as a % of the monthly fee?",
        "How is SLA compensation calculated - per incident or per month?",
    ],
    "custom": [
        "Do you support custom fields?",
        "Can I customize my dashboard colors?",
        "Do you offer custom contracts for enterprise?",
        "do you support custom domains for the help center?",
        "Can I customise the email templates?",
        "is there a custom role builder on Pro?",
        "Can I build custom reports?",
        "Is custom pricing available for nonprofits, or is it just the standard discount?",
        "does enterprise include bespoke onboarding?",
        "Can I customize the chat widget to match our brand?",
        "can i add custom css to the customer portal",
        "Do you build bespoke integrations or is it API only?",
        "custom objects in the salesforce sync - supported?",
        "How many custom fields can I have on the Starter plan?",
        "Is there an extra charge for a custom subdomain?",
        "can i customize notification schedules per user?",
        "Are custom webhook payloads supported?",
    ],
    "complaint": [
        "Does the shared inbox have a complaint category out of the box?",
        "Can your analytics show complaint volume by week?",
        "Is there a template for replying to customer complaints?",
        "can the bot auto-tag messages that look like complaints?",
        "Can we track complaint resolution times for our regulator's reporting?",
        "Do you have a public complaints policy? our procurement checklist asks for one",
        "do other customers complain about the mobile app being slow? asking before we buy",
        "Does the ticket form let our own customers submit complaints separately from questions?",
    ],
    "legal": [
        "Is there a legal entity in the EU for invoicing?",
        "What's your company's legal name and VAT number for our vendor form?",
        "Where can I read your legal terms, like the ToS and privacy policy?",
        "Do you have a legal hold feature for retaining messages?",
        "is your e-signature legally binding in the EU?",
        "We're a law firm - do lawyers on our team need a special seat type?",
        "Can I add a legal disclaimer to outgoing emails?",
        "Does the audit log meet legal discovery requirements?",
        "do you have other customers who are lawyers or legal teams?",
        "Can I download your standard DPA without talking to legal?",
        "Is the free trial legally binding in any way, like auto-converting to paid?",
        "Does the contract template library include legal clause templates?",
    ],
    "none": [
        "How much is the Pro plan per month?",
        "whats the difference between starter and pro",
        "Is there a discount if we pay annually?",
        "How long is the free trial?",
        "do i need a credit card for the trial",
        "Do you integrate with HubSpot?",
        "Is there a REST API, and what are the rate limits?",
        "Are you SOC 2 compliant?",
        "Where is customer data stored?",
        "can we pay by invoice instead of card?",
        "What happens if we go over our seat limit?",
        "Do you support SSO with Okta?",
        "Is there a mobile app for iOS and Android?",
        "how do i export all my contacts to csv",
        "What support hours do you offer?",
        "Can I upgrade from Starter to Pro in the middle of a billing cycle?",
        "how many users does the starter plan allow?",
        "Does the Slack integration post new leads to a channel?",
        "What's included in the Enterprise tier?",
        "Do you offer training sessions for new teams?",
        "hi! is there a limit on storage per workspace?",
        "Which languages does the chat widget support?",
    ],
}


def rows() -> list[dict]:
    out = []
    for sensitive, groups in ((True, SENSITIVE), (False, ORDINARY)):
        for topic, texts in groups.items():
            for n, text in enumerate(sorted(texts, key=str.casefold)):
                split = "dev" if n % 2 == 0 else "test"
                out.append({"text": text, "sensitive": sensitive, "topic": topic, "split": split})
    texts = [row["text"].casefold().strip() for row in out]
    assert len(texts) == len(set(texts)), "duplicate text"
    return out


if __name__ == "__main__":
    path = Path(__file__).with_name("sensitive_queries.jsonl")
    data = rows()
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in data), encoding="utf-8")
    print(f"{len(data)} lines -> {path}")
    counts = Counter((row["split"], row["sensitive"], row["topic"]) for row in data)
    for key in sorted(counts, key=str):
        print(*key, counts[key], sep="\t")
