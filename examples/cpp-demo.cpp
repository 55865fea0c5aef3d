/* cpp-demo: a deterministic C++ workload to trace with fxtauto: namespaces, class and function
 * templates, virtual calls, and exceptions thrown through 4 instrumented frames and caught.
 * No arguments; prints 5 fixed lines. No standard-library templates are used, so every
 * instrumented function is one of these, with these exact call counts (demangled names):
 *   main 1, shapes_demo() 1, templates_demo() 1, parse_demo(int*) 1
 *   geo::Shape::Shape(int) 3, geo::Shape::~Shape() 3, geo::Shape::id() const 3,
 *   geo::Shape::kind() const 1, geo::Square::Square(int, long) 2, geo::Square::~Square() 2,
 *   geo::Square::area() const 2, geo::Square::kind() const 2, geo::Rect::Rect(int, long, long) 1,
 *   geo::Rect::~Rect() 1, geo::Rect::area() const 1, geo::describe(geo::Shape const&) 3,
 *   geo::total_area(geo::Shape const* const*, int) 1
 *   int num::square<int>(int) 5, double num::square<double>(double) 4,
 *   int num::sum_squares<int>(int const*, int) 1,
 *   double num::sum_squares<double>(double const*, int) 1,
 *   num::Accumulator<long>::Accumulator() 1, num::Accumulator<long>::add(long) 10,
 *   num::Accumulator<long>::total() const 1
 *   app::load(char const* const*, int, int*) 1, app::record(char const*) 5,
 *   app::field(char const*) 5, app::number(char const*) 5, app::digit(char, int) 10,
 *   app::note_error(app::ParseError const&) 2   (2 exceptions thrown by app::digit) */
/* SPDX-License-Identifier: MIT */
#include <cstdio>

namespace geo {

class Shape {
public:
	explicit Shape(int id);
	virtual ~Shape();
	virtual long area() const = 0;
	virtual const char *kind() const;
	int id() const;

private:
	int id_;
};

class Square final : public Shape {
public:
	Square(int id, long side);
	~Square() override;
	long area() const override;
	const char *kind() const override;

private:
	long side_;
};

class Rect final : public Shape {
public:
	Rect(int id, long w, long h);
	~Rect() override;
	long area() const override;	/* kind() is Shape's */

private:
	long w_, h_;
};

/* Each destructor has a body of its own: clang would otherwise alias an empty derived
 * destructor to the base one, and the two would be one function in the trace. */
long ledger;

Shape::Shape(int id) : id_(id) {}
Shape::~Shape() { ledger -= 1; }
const char *Shape::kind() const { return "shape"; }
int Shape::id() const { return id_; }

Square::Square(int id, long side) : Shape(id), side_(side) {}
Square::~Square() { ledger += side_; }
long Square::area() const { return side_ * side_; }
const char *Square::kind() const { return "square"; }

Rect::Rect(int id, long w, long h) : Shape(id), w_(w), h_(h) {}
Rect::~Rect() { ledger += w_ * h_; }
long Rect::area() const { return w_ * h_; }

/* One virtual kind() and one id() per call. */
long describe(const Shape &s)
{
	const char *kind = s.kind();
	return s.id() * 1000 + (kind[0] == 's' && kind[1] == 'q' ? 1 : 2);
}

/* One virtual area() per shape. */
long total_area(const Shape *const *shapes, int n)
{
	long sum = 0;
	for (int i = 0; i < n; i++)
		sum += shapes[i]->area();
	return sum;
}

} // namespace geo

namespace num {

template <class T> T square(T x)
{
	return x * x;
}

template <class T> T sum_squares(const T *v, int n)
{
	T sum = 0;
	for (int i = 0; i < n; i++)
		sum += square(v[i]);
	return sum;
}

template <class T> class Accumulator {
public:
	Accumulator();
	void add(T v);
	T total() const;

private:
	T sum_;
};

template <class T> Accumulator<T>::Accumulator() : sum_(0) {}
template <class T> void Accumulator<T>::add(T v) { sum_ += v; }
template <class T> T Accumulator<T>::total() const { return sum_; }

} // namespace num

namespace app {

struct ParseError {
	int code, pos;
};

int digit(char c, int pos)
{
	if (c < '0' || c > '9')
		throw ParseError{ 1, pos };
	return c - '0';
}

long number(const char *s)
{
	long v = 0;
	for (int i = 0; s[i]; i++)
		v = v * 10 + digit(s[i], i);
	return v;
}

long field(const char *s)
{
	return number(s) + 1;
}

long record(const char *s)
{
	return field(s) * 2;
}

void note_error(const ParseError &e)
{
	std::printf("cpp-demo: parse error %d at %d\n", e.code, e.pos);
}

/* Exceptions from app::digit cross number, field and record before landing here. */
long load(const char *const *inputs, int n, int *errors)
{
	long total = 0;
	for (int i = 0; i < n; i++) {
		try {
			total += record(inputs[i]);
		} catch (const ParseError &e) {
			++*errors;
			note_error(e);
		}
	}
	return total;
}

} // namespace app

static long shapes_demo()
{
	geo::Square a(1, 3), b(2, 4);
	geo::Rect c(3, 2, 5);
	const geo::Shape *all[] = { &a, &b, &c };
	long tags = geo::describe(a) + geo::describe(b) + geo::describe(c);
	return geo::total_area(all, 3) * 10000 + tags;
}

static double templates_demo()
{
	static const int ints[] = { 1, 2, 3, 4, 5 };
	static const double reals[] = { 0.5, 1.5, 2.5, 3.5 };
	num::Accumulator<long> acc;
	for (long i = 1; i <= 10; i++)
		acc.add(i);
	return num::sum_squares(ints, 5) + num::sum_squares(reals, 4) + acc.total();
}

static long parse_demo(int *errors)
{
	static const char *const inputs[] = { "12", "345", "6x7", "89", "y" };
	return app::load(inputs, 5, errors);
}

int main()
{
	int errors = 0;
	long shapes = shapes_demo();
	double templ = templates_demo();
	long parsed = parse_demo(&errors);

	std::printf("cpp-demo: shapes %ld, ledger %ld\n", shapes, geo::ledger);
	std::printf("cpp-demo: templates %.2f\n", templ);
	std::printf("cpp-demo: parsed %ld with %d errors\n", parsed, errors);
	return 0;
}
