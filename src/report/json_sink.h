// SPDX-License-Identifier: MIT
// Where the JSON report goes, member by member: into one document in memory (render_json,
// for tests and for readers of a few rings) or straight to a stream (write_json_report,
// the report file), so a report of thousands of rings never exists whole in memory. Both
// are fed by the same code (report_json.cpp) and write the same bytes.
#pragma once

#include <cstddef>
#include <ostream>
#include <string_view>

#include <nlohmann/json.hpp>

namespace uringscope {

class JsonSink {
 public:
  virtual ~JsonSink() = default;
  virtual void member(std::string_view key, nlohmann::ordered_json value) = 0;
  // An array member written one element at a time.
  virtual void begin_array(std::string_view key) = 0;
  virtual void element(nlohmann::ordered_json value) = 0;
  virtual void end_array() = 0;
  // Strings in which bytes that start no UTF-8 sequence were replaced, so far.
  std::size_t replaced() const { return replaced_; }

 protected:
  std::size_t replaced_ = 0;
};

// Builds the document.
class JsonDocumentSink final : public JsonSink {
 public:
  void member(std::string_view key, nlohmann::ordered_json value) override;
  void begin_array(std::string_view key) override;
  void element(nlohmann::ordered_json value) override;
  void end_array() override;
  nlohmann::ordered_json take() { return std::move(doc_); }

 private:
  nlohmann::ordered_json doc_ = nlohmann::ordered_json::object();
  std::string array_key_;
};

// Writes the document as json_document(doc, 2) would, one member or element at a time.
class JsonStreamSink final : public JsonSink {
 public:
  explicit JsonStreamSink(std::ostream& out);
  // Closes the object; nothing may be added after.
  void finish();
  void member(std::string_view key, nlohmann::ordered_json value) override;
  void begin_array(std::string_view key) override;
  void element(nlohmann::ordered_json value) override;
  void end_array() override;

 private:
  void key(std::string_view name);
  std::ostream& out_;
  bool first_member_ = true;
  bool first_element_ = true;
};

}  // namespace uringscope
